import { SMTPServer } from 'smtp-server';

/** One message as the SMTP server received it, decoded enough to assert on. */
export interface ReceivedMail {
  envelopeFrom: string;
  envelopeTo: string[];
  headers: Map<string, string>;
  subject: string;
  from: string;
  to: string;
  messageId: string;
  text: string;
  html: string;
  raw: string;
}

export interface SmtpSink {
  url: string;
  port: number;
  messages: ReceivedMail[];
  /** While true, every message is refused with a temporary error (451). */
  failing: boolean;
  /** Messages refused so far. */
  refused: number;
  close(): Promise<void>;
}

/** A real SMTP server on loopback, on a free port (or `port`), keeping what it accepts. */
export async function startSmtpSink(port = 0): Promise<SmtpSink> {
  const sink: SmtpSink = {
    url: '',
    port: 0,
    messages: [],
    failing: false,
    refused: 0,
    close: async () => {},
  };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS', 'AUTH'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (sink.failing) {
          sink.refused++;
          const err = Object.assign(new Error('mailbox busy, try later'), { responseCode: 451 });
          callback(err);
          return;
        }
        const raw = Buffer.concat(chunks).toString('utf8');
        const from = session.envelope.mailFrom;
        sink.messages.push({
          ...parseMessage(raw),
          envelopeFrom: from ? from.address : '',
          envelopeTo: session.envelope.rcptTo.map((r) => r.address),
          raw,
        });
        callback();
      });
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const address = server.server.address();
  sink.port = typeof address === 'object' && address ? address.port : port;
  sink.url = `smtp://127.0.0.1:${sink.port}`;
  sink.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return sink;
}

type Parsed = Omit<ReceivedMail, 'envelopeFrom' | 'envelopeTo' | 'raw'>;

function decodeWords(value: string): string {
  return value
    .replace(/(=\?[^?]+\?[QqBb]\?[^?]*\?=)\s+(?==\?)/g, '$1')
    .replace(/=\?([^?]+)\?([QqBb])\?([^?]*)\?=/g, (_m, _charset: string, enc: string, text: string) => {
      if (enc.toUpperCase() === 'B') return Buffer.from(text, 'base64').toString('utf8');
      return qpDecode(text.replace(/_/g, ' '));
    });
}

function qpDecode(text: string): string {
  const soft = text.replace(/=\r?\n/g, '');
  const bytes: number[] = [];
  for (let i = 0; i < soft.length; i++) {
    const c = soft[i] as string;
    if (c === '=' && /^[0-9A-Fa-f]{2}$/.test(soft.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(soft.slice(i + 1, i + 3), 16));
      i += 2;
    } else {
      bytes.push(...Buffer.from(c, 'utf8'));
    }
  }
  return Buffer.from(bytes).toString('utf8');
}

function splitHead(raw: string): { headers: Map<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const head = at < 0 ? raw : raw.slice(0, at);
  const body = at < 0 ? '' : raw.slice(at + 4);
  const headers = new Map<string, string>();
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  return { headers, body };
}

function decodeBody(headers: Map<string, string>, body: string): string {
  const enc = (headers.get('content-transfer-encoding') ?? '7bit').toLowerCase();
  if (enc === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
  if (enc === 'quoted-printable') return qpDecode(body);
  return body;
}

function collectParts(headers: Map<string, string>, body: string, out: { text: string; html: string }): void {
  const type = headers.get('content-type') ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (type.toLowerCase().startsWith('multipart/') && boundary) {
    const pieces = body.split(`--${boundary}`).slice(1);
    for (const piece of pieces) {
      if (piece.startsWith('--')) break;
      const part = splitHead(piece.replace(/^\r\n/, ''));
      collectParts(part.headers, part.body, out);
    }
    return;
  }
  const decoded = decodeBody(headers, body);
  if (type.toLowerCase().startsWith('text/html')) out.html += decoded;
  else if (type.toLowerCase().startsWith('text/plain')) out.text += decoded;
}

export function parseMessage(raw: string): Parsed {
  const { headers, body } = splitHead(raw);
  const out = { text: '', html: '' };
  collectParts(headers, body, out);
  return {
    headers,
    subject: decodeWords(headers.get('subject') ?? ''),
    from: decodeWords(headers.get('from') ?? ''),
    to: decodeWords(headers.get('to') ?? ''),
    messageId: headers.get('message-id') ?? '',
    text: out.text.replace(/\r\n/g, '\n'),
    html: out.html.replace(/\r\n/g, '\n'),
  };
}
