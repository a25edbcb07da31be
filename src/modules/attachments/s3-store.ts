// The S3-compatible store (docs/api-contract.md §30, `ATTACHMENTS_STORE=s3`): several hosts share one bucket, with
// the official client. Keys are the same as the local store's, `<account id>/<sha256>`; an upload is staged on
// the local disk (ATTACHMENTS_DIR/.staging) and put from there with its length (its SHA-256 is its key).
import fs from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  CopyObjectCommand,
} from '@aws-sdk/client-s3';
import type { S3Config } from '../../config.js';
import type { AttachmentStore, ByteRange, PutMeta, StoredFile } from './store.js';

export class S3Store implements AttachmentStore {
  readonly kind = 's3' as const;
  readonly stagingDirectory: string;
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(settings: S3Config, directory: string) {
    this.stagingDirectory = path.join(directory, '.staging');
    this.bucket = settings.bucket;
    this.client = new S3Client({
      region: settings.region,
      // Checksums only where the operation needs them: many S3-compatible hosts refuse the newer default (a
      // CRC32 trailer in an aws-chunked body).
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      forcePathStyle: settings.forcePathStyle,
      ...(settings.endpoint ? { endpoint: settings.endpoint } : {}),
      ...(settings.accessKeyId && settings.secretAccessKey
        ? { credentials: { accessKeyId: settings.accessKeyId, secretAccessKey: settings.secretAccessKey } }
        : {}),
    });
  }

  async put(key: string, stream: Readable, meta: PutMeta): Promise<void> {
    if (await this.head(key)) return this.renew(key);
    await this.client.send(
      new PutObjectCommand({
        Bucket: this.bucket,
        Key: key,
        Body: stream,
        ContentLength: meta.size,
        ContentType: meta.contentType,
        Metadata: { sha256: meta.sha256 },
      }),
    );
  }

  async putStaged(key: string, staged: string, meta: PutMeta): Promise<void> {
    await this.put(key, fs.createReadStream(staged), meta);
  }

  /** The object's age made new (a copy onto itself), so that the sweeper leaves it for 24 hours. */
  private async renew(key: string): Promise<void> {
    await this.client.send(
      new CopyObjectCommand({
        Bucket: this.bucket,
        Key: key,
        CopySource: `${this.bucket}/${key}`,
        MetadataDirective: 'REPLACE',
      }),
    );
  }

  async get(key: string, range?: ByteRange): Promise<Readable> {
    const answer = await this.client.send(
      new GetObjectCommand({
        Bucket: this.bucket,
        Key: key,
        ...(range ? { Range: `bytes=${range.start}-${range.end}` } : {}),
      }),
    );
    return answer.Body as Readable;
  }

  async head(key: string): Promise<StoredFile | undefined> {
    try {
      const answer = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key }));
      return { key, size: Number(answer.ContentLength ?? 0), modifiedAt: answer.LastModified ?? new Date(0) };
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (status === 404 || (error as Error).name === 'NotFound') return undefined;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key }));
  }

  async list(prefix: string, after?: string): Promise<StoredFile[]> {
    const answer = await this.client.send(
      new ListObjectsV2Command({
        Bucket: this.bucket,
        Prefix: prefix,
        MaxKeys: 1000,
        ...(after ? { StartAfter: after } : {}),
      }),
    );
    return (answer.Contents ?? []).map((item) => ({
      key: item.Key ?? '',
      size: Number(item.Size ?? 0),
      modifiedAt: item.LastModified ?? new Date(0),
    }));
  }

  async check(): Promise<void> {
    await this.client.send(new HeadBucketCommand({ Bucket: this.bucket }));
    await fs.promises.mkdir(this.stagingDirectory, { recursive: true });
  }

  async close(): Promise<void> {
    this.client.destroy();
  }
}
