// A TCP proxy in front of the real server that fails the first connection, to test client retries:
// `reset` resets it before the request reaches the server; `drop-response` lets the request through
// and resets the connection as the response comes back, so the server has acted but the client
// never hears of it. Later connections pass through untouched.
import net from 'node:net';

export interface FlakyProxy {
  url: string;
  /** Connections accepted so far. */
  readonly connections: number;
  close(): Promise<void>;
}

export async function startFlakyProxy(target: string, mode: 'reset' | 'drop-response'): Promise<FlakyProxy> {
  const { hostname, port } = new URL(target);
  let connections = 0;
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    connections += 1;
    sockets.add(client);
    client.on('close', () => sockets.delete(client));
    client.on('error', () => {});
    if (connections === 1 && mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    const upstream = net.connect(Number(port), hostname);
    sockets.add(upstream);
    upstream.on('close', () => sockets.delete(upstream));
    upstream.on('error', () => client.destroy());
    client.on('close', () => upstream.destroy());
    client.pipe(upstream);
    if (connections === 1) upstream.once('data', () => client.resetAndDestroy());
    else upstream.pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as net.AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    get connections() {
      return connections;
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
