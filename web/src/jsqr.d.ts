/** jsQR's browser build, which web/build.mjs writes beside the app's modules as the ES module `jsqr.js`. */
export { default } from 'jsqr';
