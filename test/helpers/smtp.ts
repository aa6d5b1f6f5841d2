/**
 * A real SMTP server for tests (the npm `smtp-server` package) on loopback, port 0: the peer of
 * src/core/outside/mail.client.ts. It keeps every message it accepted (envelope, headers, subject,
 * text and HTML parts read with a small MIME reader: enough for what nodemailer writes) and every
 * attempt (accepted or refused, with the reply code), and fails on command:
 *
 *   const smtp = await startSmtp({ auth: { user: 'alerts', pass: 's3cret' } });
 *   smtp.failNext('data', 451, 'Try again later');   // one transient refusal, then success
 *   smtp.failNext('rcpt', 550, 'No such user');      // a final one
 *   startApp({ SMTP_URL: smtp.url });                // smtp://alerts:s3cret@127.0.0.1:PORT
 *
 * STARTTLS is not offered (plain SMTP on loopback); AUTH PLAIN/LOGIN only when `auth` is given, and
 * then required (a client without credentials is refused 530 at MAIL FROM).
 */
import { SMTPServer, type SMTPServerAuthentication, type SMTPServerAuthenticationResponse, type SMTPServerSession } from 'smtp-server';

export interface ReceivedMail {
  from: string;
  to: string[];
  /** Header names lower-case, values unfolded and decoded (encoded words). */
  headers: Record<string, string>;
  subject: string;
  messageId: string;
  text: string;
  html: string;
  raw: string;
  /** The user that signed in, when any. */
  user: string | null;
}

export interface SmtpAttempt {
  stage: 'mail' | 'rcpt' | 'data' | 'auth';
  code: number;
  /** Recipient of a rcpt stage. */
  address?: string;
}

export interface TestSmtp {
  port: number;
  /** `smtp://[user:pass@]127.0.0.1:port`, for SMTP_URL. */
  url: string;
  messages: ReceivedMail[];
  /** Every refusal made (scripted or by a bad sign-in), in order. */
  refusals: SmtpAttempt[];
  /** DATA commands received (accepted or refused): how many times a message was offered. */
  dataAttempts: number;
  /** Refuses the next command of `stage` with this reply (queued: several calls refuse several times). */
  failNext(stage: 'mail' | 'rcpt' | 'data', code: number, message: string): void;
  close(): Promise<void>;
}

type Stage = 'mail' | 'rcpt' | 'data';
const smtpError = (code: number, message: string) => Object.assign(new Error(message), { responseCode: code });

export async function startSmtp(o: { auth?: { user: string; pass: string } } = {}): Promise<TestSmtp> {
  const messages: ReceivedMail[] = [];
  const refusals: SmtpAttempt[] = [];
  const queue: Record<Stage, Array<{ code: number; message: string }>> = { mail: [], rcpt: [], data: [] };
  let dataAttempts = 0;
  const scripted = (stage: Stage, address?: string): Error | null => {
    const f = queue[stage].shift();
    if (!f) return null;
    refusals.push({ stage, code: f.code, ...(address ? { address } : {}) });
    return smtpError(f.code, f.message);
  };
  const server = new SMTPServer({
    logger: false,
    banner: 'test SMTP',
    disabledCommands: o.auth ? ['STARTTLS'] : ['STARTTLS', 'AUTH'],
    authOptional: !o.auth,
    allowInsecureAuth: true,
    onAuth(auth: SMTPServerAuthentication, _session: SMTPServerSession, cb: (err: Error | null | undefined, response?: SMTPServerAuthenticationResponse) => void) {
      if (o.auth && auth.username === o.auth.user && auth.password === o.auth.pass) return cb(null, { user: auth.username });
      refusals.push({ stage: 'auth', code: 535 });
      cb(smtpError(535, 'Authentication failed'));
    },
    onMailFrom(_address, _session, cb) {
      cb(scripted('mail') ?? undefined);
    },
    onRcptTo(address, _session, cb) {
      cb(scripted('rcpt', address.address) ?? undefined);
    },
    onData(stream, session, cb) {
      dataAttempts++;
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        const refused = scripted('data');
        if (refused) return cb(refused);
        const raw = Buffer.concat(chunks).toString('utf8');
        messages.push({
          ...readMessage(raw),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: typeof session.user === 'string' ? session.user : null,
        });
        cb(null);
      });
    },
  });
  server.on('error', () => undefined);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.server.address() as { port: number }).port;
  const cred = o.auth ? `${encodeURIComponent(o.auth.user)}:${encodeURIComponent(o.auth.pass)}@` : '';
  return {
    port,
    url: `smtp://${cred}127.0.0.1:${port}`,
    messages,
    refusals,
    get dataAttempts() { return dataAttempts; },
    failNext: (stage, code, message) => void queue[stage].push({ code, message }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

// ---------------------------------------------------------------------------------------------
// A small MIME reader: headers (unfolded, encoded words decoded), and the text/plain and text/html
// parts of a single-part or multipart message (quoted-printable or base64).

function decodeWords(v: string): string {
  return v.replace(/=\?([^?]+)\?([bqBQ])\?([^?]*)\?=\s*(?==\?)?/g, (_m, _cs: string, enc: string, data: string) =>
    enc.toUpperCase() === 'B'
      ? Buffer.from(data, 'base64').toString('utf8')
      : Buffer.from(data.replace(/_/g, ' ').replace(/=([0-9A-Fa-f]{2})/g, (_x, h: string) => String.fromCharCode(parseInt(h, 16))), 'latin1').toString('utf8'));
}

function splitHead(raw: string): { headers: Record<string, string>; body: string } {
  const i = raw.search(/\r?\n\r?\n/);
  const head = i < 0 ? raw : raw.slice(0, i);
  const body = i < 0 ? '' : raw.slice(i).replace(/^\r?\n\r?\n/, '');
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const c = line.indexOf(':');
    if (c > 0) headers[line.slice(0, c).trim().toLowerCase()] ??= decodeWords(line.slice(c + 1).trim());
  }
  return { headers, body };
}

function decodeBody(body: string, encoding = ''): string {
  const e = encoding.toLowerCase();
  if (e === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (e === 'quoted-printable') {
    const bytes = body.replace(/=\r?\n/g, '').replace(/=([0-9A-Fa-f]{2})/g, (_m, h: string) => String.fromCharCode(parseInt(h, 16)));
    return Buffer.from(bytes, 'latin1').toString('utf8');
  }
  return body;
}

function parts(headers: Record<string, string>, body: string, out: { text: string; html: string }) {
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (/^multipart\//i.test(type) && boundary) {
    for (const chunk of body.split(`--${boundary}`).slice(1)) {
      if (chunk.startsWith('--')) break;
      const p = splitHead(chunk.replace(/^\r?\n/, ''));
      parts(p.headers, p.body.replace(/\r?\n$/, ''), out);
    }
    return;
  }
  const text = decodeBody(body, headers['content-transfer-encoding']);
  if (/^text\/html/i.test(type)) out.html ||= text;
  else if (/^text\/plain/i.test(type)) out.text ||= text;
}

export function readMessage(raw: string): Omit<ReceivedMail, 'from' | 'to' | 'user'> {
  const { headers, body } = splitHead(raw);
  const out = { text: '', html: '' };
  parts(headers, body, out);
  return { headers, subject: headers.subject ?? '', messageId: headers['message-id'] ?? '', text: out.text.replace(/\r\n/g, '\n'), html: out.html.replace(/\r\n/g, '\n'), raw };
}
