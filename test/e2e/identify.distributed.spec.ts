import { identifyTreesStory } from './identify.helpers.js';

identifyTreesStory('distributed');
