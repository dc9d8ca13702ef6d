import { identifyTreesStory } from './identify.helpers.js';

// The same story through PostgreSQL, Redis and S3 with a worker of its own, on fewer trees: the
// number of trees is a recognition question, which identify.spec.ts asks embedded on the full
// scenario; what this file adds is the adapters, and the database conformance suite proves them
// equivalent on every query the search makes.
identifyTreesStory('distributed', { aTrees: 8, bTrees: 3, perTest: 2 });
