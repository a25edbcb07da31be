// Where e-mails go: an SMTP server (SMTP_URL), or .eml files in a folder so a newcomer can open what was
// sent. Both build the message with nodemailer, so the bytes are the same either way.
import fs from 'node:fs/promises';
import path from 'node:path';
import type nodemailer from 'nodemailer';
import type { Config } from '../config.js';

export interface OutgoingMail {
  from: { name: string; address: string };
  to: string;
  /** Where the client's answer goes: the business's own address (the From is the server's sending address). */
  replyTo?: { name: string; address: string };
  subject: string;
  text: string;
  html: string;
  /** Stable per outbox row, so a retried delivery can be recognised as the same message. */
  messageId: string;
  attachments: Array<{ filename: string; content: Buffer; contentType: string }>;
}

export interface MailTransport {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
}

/** nodemailer is loaded with the first message: a process that sends nothing does not carry it. */
function loadedOnFirstSend(create: (mailer: typeof nodemailer) => MailTransport): MailTransport {
  let transport: MailTransport | undefined;
  return {
    async send(mail) {
      transport ??= create((await import('nodemailer')).default);
      await transport.send(mail);
    },
    close: () => transport?.close(),
  };
}

export function smtpTransport(url: string): MailTransport {
  return loadedOnFirstSend((mailer) => smtpWith(mailer, url));
}

function smtpWith(mailer: typeof nodemailer, url: string): MailTransport {
  const parsed = new URL(url);
  const transporter = mailer.createTransport({
    host: parsed.hostname,
    port: Number(parsed.port || (parsed.protocol === 'smtps:' ? 465 : 587)),
    secure: parsed.protocol === 'smtps:',
    auth: parsed.username
      ? { user: decodeURIComponent(parsed.username), pass: decodeURIComponent(parsed.password) }
      : undefined,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 30_000,
  });
  return {
    async send(mail) {
      await transporter.sendMail(mail);
    },
    close: () => transporter.close(),
  };
}

export function fileTransport(directory: string): MailTransport {
  return loadedOnFirstSend((mailer) => filesWith(mailer, directory));
}

function filesWith(mailer: typeof nodemailer, directory: string): MailTransport {
  const transporter = mailer.createTransport({ streamTransport: true, buffer: true, newline: 'windows' });
  return {
    async send(mail) {
      const info = await transporter.sendMail(mail);
      await fs.mkdir(directory, { recursive: true });
      const name = `${mail.messageId.replace(/[<>]/g, '').replace(/[^A-Za-z0-9@._-]/g, '_')}.eml`;
      // Write then rename, so a reader never sees half a file.
      const temporary = path.join(directory, `.${name}.tmp`);
      await fs.writeFile(temporary, info.message as Buffer);
      await fs.rename(temporary, path.join(directory, name));
    },
    close: () => transporter.close(),
  };
}

export function transportFromConfig(config: Config): MailTransport {
  return config.smtpUrl ? smtpTransport(config.smtpUrl) : fileTransport(config.outboxDirectory);
}
