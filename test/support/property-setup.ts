// Vitest setup file: one fixed seed for every fast-check property (see property.ts).
import fc from 'fast-check';
import { PROPERTY_SEED } from './property.js';

fc.configureGlobal({ seed: PROPERTY_SEED });
if (process.env.FC_SEED === 'random') console.log(`[property tests] FC_SEED=${PROPERTY_SEED}`);
