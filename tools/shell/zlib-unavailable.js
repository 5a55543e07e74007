// Stands in for node:zlib, which just-bash's gzip commands import: no zlib exists inside the
// component, so those commands are left out and these fail clearly if reached anyway.
const unavailable = () => {
  throw new Error('gzip compression is not available in the sandboxed shell');
};
export const gzipSync = unavailable;
export const gunzipSync = unavailable;
export const constants = {};
export default { gzipSync, gunzipSync, constants };
