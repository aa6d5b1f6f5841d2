/**
 * A whois server on loopback speaking the real protocol (RFC 3912), the fake of
 * src/core/outside/whois.client.ts (TCP, not HTTP, so not over fake-http.ts): the client connects, sends
 * one query line ending in CRLF, the server writes the answer text and closes. The test decides the
 * answer per query; `null` means never answer (the connection stays open: a time-out), `'close'`
 * closes without a byte. Every query line received is recorded in `queries`.
 *
 *   const rir = await startWhoisServer((q) => `inetnum: 192.0.2.0 - 192.0.2.255\nnetname: TEST-NET\n`);
 *   const iana = await startWhoisServer(() => `refer: 127.0.0.1:${rir.port}\n`);
 *   startApp({ WHOIS_SERVER: iana.address });
 */
import { createServer, type Server, type Socket } from 'node:net';

export type WhoisReply = string | null | 'close';

export interface WhoisServer {
  port: number;
  /** `127.0.0.1:port`, for WHOIS_SERVER or a `refer:` line. */
  address: string;
  /** Query lines received (without CRLF), in order. */
  queries: string[];
  close(): Promise<void>;
}

export async function startWhoisServer(answer: (query: string) => WhoisReply | Promise<WhoisReply>): Promise<WhoisServer> {
  const queries: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    let buf = '';
    let asked = false;
    socket.on('data', (chunk) => {
      if (asked) return;
      buf += chunk.toString('utf8');
      const end = buf.indexOf('\r\n');
      if (end < 0) {
        if (buf.length > 4096) socket.destroy();
        return;
      }
      asked = true;
      const query = buf.slice(0, end);
      queries.push(query);
      void Promise.resolve(answer(query)).then((reply) => {
        if (reply === null) return; // hold the connection open, answer nothing
        if (reply === 'close') return void socket.end();
        socket.end(reply.replace(/\r?\n/g, '\r\n'));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    port,
    address: `127.0.0.1:${port}`,
    queries,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}

/** An IANA answer for an address block, as whois.iana.org writes it, referring to `refer`. */
export const ianaAnswer = (block: string, refer: string) => `% IANA WHOIS server
% for more information on IANA, visit http://www.iana.org
% This query returned 1 object

refer:        ${refer}

inetnum:      ${block}
organisation: Test registry
status:       ALLOCATED

whois:        ${refer}

changed:      1993-05
source:       IANA
`;

/** A RIPE-style answer for one network. */
export const ripeAnswer = (o: { range: string; netname: string; country: string; org: string; abuse?: string }) => `% This is the RIPE Database query service.
% The objects are in RPSL format.

inetnum:        ${o.range}
netname:        ${o.netname}
country:        ${o.country}
org-name:       ${o.org}
status:         ASSIGNED PA
${o.abuse ? `abuse-mailbox:  ${o.abuse}\n` : ''}mnt-by:         TEST-MNT
source:         RIPE
`;
