// The package's version. The wasm module reports its crate version and the two must be equal
// (engine.ts refuses a mismatch): both come from the same release. tests/node/version.test.mjs
// keeps this, web/package.json and the Cargo workspace version in step.
export const VERSION = "0.1.0";
