// The lint rules of the TypeScript that never ships: test/eslint.config.mjs.
export { default } from '../test/eslint.config.mjs';
