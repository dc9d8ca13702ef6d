import { bulkBatchSuite } from './fruit-batch-200.helpers.js';

bulkBatchSuite('embedded');
