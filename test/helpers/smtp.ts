// A real SMTP server in the test process (smtp-server), recording every message it accepts, parsed
// back with mailparser. It can refuse the next N messages, or hold each message for a while.
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';
import { patient } from './patience.js';

export interface TestSmtpServer {
  url: string;
  port: number;
  messages: ParsedMail[];
  /** Answer the next `count` messages with a temporary failure (451). */
  refuseNext(count: number): void;
  /** Hold each message this long before accepting it. */
  delayMs: number;
  /** How many messages have started to arrive (DATA begun), accepted or not. */
  readonly started: number;
  /** Resolves once `count` messages have been accepted. */
  waitFor(count: number, timeoutMs?: number): Promise<ParsedMail[]>;
  close(): Promise<void>;
}

export async function startSmtpServer(port = 0): Promise<TestSmtpServer> {
  const messages: ParsedMail[] = [];
  let refusals = 0;
  const state = { delayMs: 0, started: 0 };
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      state.started += 1;
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('end', () => {
        if (refusals > 0) {
          refusals -= 1;
          const error = Object.assign(new Error('Try again later'), { responseCode: 451 });
          callback(error);
          return;
        }
        setTimeout(() => {
          simpleParser(Buffer.concat(chunks))
            .then((parsed) => {
              messages.push(parsed);
              callback();
            })
            .catch(callback);
        }, state.delayMs);
      });
    },
  });
  // A client killed mid-message resets its connection: expected in the crash tests, not a test failure.
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  const address = server.server.address();
  const actualPort = typeof address === 'object' && address ? address.port : port;
  return {
    url: `smtp://127.0.0.1:${actualPort}`,
    port: actualPort,
    messages,
    refuseNext(count) {
      refusals = count;
    },
    get started() {
      return state.started;
    },
    get delayMs() {
      return state.delayMs;
    },
    set delayMs(value: number) {
      state.delayMs = value;
    },
    async waitFor(count, timeoutMs = 15_000) {
      // Scaled by the machine's load: a wait ends when the count is reached, so a fast machine loses nothing.
      const deadline = Date.now() + patient(timeoutMs);
      while (messages.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} messages within ${patient(timeoutMs)} ms, got ${messages.length}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      return messages;
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The text of each page of a PDF, one line per text run, read back with pdf.js (Mozilla's PDF reader). */
export async function pdfPages(pdf: Buffer): Promise<string[]> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const document = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, isEvalSupported: false })
    .promise;
  const pages: string[] = [];
  for (let number = 1; number <= document.numPages; number += 1) {
    const content = await (await document.getPage(number)).getTextContent();
    const lines: string[] = [];
    for (const item of content.items) if ('str' in item && item.str.trim() !== '') lines.push(item.str);
    pages.push(lines.join('\n'));
  }
  await document.destroy();
  return pages;
}

/** The text a PDF shows, all pages. */
export async function pdfText(pdf: Buffer): Promise<string> {
  return (await pdfPages(pdf)).join('\n');
}

/** Each page's size in points (width × height), read back with pdf.js from the page's MediaBox. */
export async function pdfPageSizes(pdf: Buffer): Promise<Array<{ width: number; height: number }>> {
  const { getDocument } = await import('pdfjs-dist/legacy/build/pdf.mjs');
  const document = await getDocument({ data: new Uint8Array(pdf), useSystemFonts: false, isEvalSupported: false })
    .promise;
  const sizes: Array<{ width: number; height: number }> = [];
  for (let number = 1; number <= document.numPages; number += 1) {
    const viewport = (await document.getPage(number)).getViewport({ scale: 1 });
    sizes.push({ width: Math.round(viewport.width * 100) / 100, height: Math.round(viewport.height * 100) / 100 });
  }
  await document.destroy();
  return sizes;
}
