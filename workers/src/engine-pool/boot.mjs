// Pool threads run TypeScript like the rest of the service: register tsx's loader in this thread
// (worker threads do not inherit the parent's loader hooks on Node 20), then load the task module.
import { register } from 'tsx/esm/api';

register();
const task = await import(new URL('./task.ts', import.meta.url).href);
export default task.default;
