// Whether an address is reachable from this machine only: the rule behind binding 127.0.0.1 by
// default and asking for the admin token anywhere else (the HTTP server, main, doctor).

/** True for addresses only this machine can reach (`localhost`, `::1`, 127.x.y.z). */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
}
