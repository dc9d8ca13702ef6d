import { publicFruitSuite } from './fruit-public.helpers.js';

publicFruitSuite('distributed');
