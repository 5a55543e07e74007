// wasi:sockets for guests: nothing. Every socket operation is refused with `access-denied`;
// outbound HTTP goes through wasi:http, where the broker checks it.
const deny = (): never => {
  throw 'access-denied';
};

/** A network handle that grants nothing. */
class Network {}

/** Socket resources exist only so the glue can name them; none can be created. */
class TcpSocket {}
class UdpSocket {}
class IncomingDatagramStream {}
class OutgoingDatagramStream {}
class ResolveAddressStream {}

/** The `wasi:sockets/*` import objects. */
export function socketsImports(): Record<string, Record<string, unknown>> {
  return {
    'wasi:sockets/network': { Network, networkErrorCode: () => undefined },
    'wasi:sockets/instance-network': { instanceNetwork: () => new Network() },
    'wasi:sockets/tcp-create-socket': { createTcpSocket: deny },
    'wasi:sockets/udp-create-socket': { createUdpSocket: deny },
    'wasi:sockets/tcp': { TcpSocket },
    'wasi:sockets/udp': { UdpSocket, IncomingDatagramStream, OutgoingDatagramStream },
    'wasi:sockets/ip-name-lookup': { resolveAddresses: deny, ResolveAddressStream },
  };
}
