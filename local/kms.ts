import { createCipheriv, createDecipheriv, randomBytes, randomUUID } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { LOCAL_ACCOUNT_ID, LOCAL_REGION } from './aws-clients';

/**
 * The stateful stack's signing keys KMS key, locally: enough of KMS's `Encrypt` and `Decrypt` (its
 * JSON protocol, so the functions' own KMSClient talks to it through AWS_ENDPOINT_URL_KMS) for the
 * functions' calls. AES-256-GCM under a key kept in the data dir, so what a gateway stored still
 * decrypts after a restart. The encryption context is bound as additional authenticated data, so a
 * ciphertext asked back under another context is refused with KMS's InvalidCiphertextException, as
 * AWS refuses it. Who may call which is local/iam's business (the functions' roles), as for every call.
 */

export interface LocalKms {
  endpoint: string;
  keyArn: string;
  close(): Promise<void>;
}

interface KeyFile {
  key_id: string;
  /** base64 of the 32-byte AES key. */
  material: string;
}

const KEY_FILE = 'kms-signing-keys.json';
/** What a local ciphertext starts with: the format's version, then the key id it was made with. */
const MAGIC = Buffer.from('hgk1');
const KEY_ID_BYTES = 36;
const IV_BYTES = 12;
const TAG_BYTES = 16;

async function loadKey(dataDir: string): Promise<{ keyId: string; material: Buffer }> {
  const path = join(dataDir, KEY_FILE);
  try {
    const file = JSON.parse(await readFile(path, 'utf8')) as KeyFile;
    return { keyId: file.key_id, material: Buffer.from(file.material, 'base64') };
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  const made: KeyFile = { key_id: randomUUID(), material: randomBytes(32).toString('base64') };
  // The data dir is locked to one gateway (local/data-dir-lock.ts): no other process makes it at once.
  await writeFile(path, JSON.stringify(made), { mode: 0o600, flag: 'wx' });
  return { keyId: made.key_id, material: Buffer.from(made.material, 'base64') };
}

/** The context as AAD: the same pairs in any order are the same context, as in KMS. */
const aad = (context: unknown): Buffer => {
  const pairs = Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return Buffer.from(JSON.stringify(pairs));
};

class KmsError extends Error {
  constructor(
    readonly type: string,
    message: string,
  ) {
    super(message);
  }
}

type Json = Record<string, unknown>;

/** Serves the key: its endpoint, and its ARN as the stack's output would name it. */
export async function startLocalKms(dataDir: string): Promise<LocalKms> {
  const { keyId, material } = await loadKey(dataDir);
  const keyArn = `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${keyId}`;

  const checkKey = (asked: unknown): void => {
    if (asked !== keyId && asked !== keyArn) throw new KmsError('NotFoundException', `Key '${String(asked)}' does not exist`);
  };

  const encrypt = (input: Json): Json => {
    checkKey(input.KeyId);
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', material, iv).setAAD(aad(input.EncryptionContext));
    const sealed = Buffer.concat([cipher.update(Buffer.from(String(input.Plaintext), 'base64')), cipher.final()]);
    const blob = Buffer.concat([MAGIC, Buffer.from(keyId), iv, cipher.getAuthTag(), sealed]);
    return { CiphertextBlob: blob.toString('base64'), KeyId: keyArn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
  };

  const decrypt = (input: Json): Json => {
    const blob = Buffer.from(String(input.CiphertextBlob), 'base64');
    const headerBytes = MAGIC.length + KEY_ID_BYTES + IV_BYTES + TAG_BYTES;
    if (blob.length < headerBytes || !blob.subarray(0, MAGIC.length).equals(MAGIC)) throw new KmsError('InvalidCiphertextException', '');
    const blobKey = blob.subarray(MAGIC.length, MAGIC.length + KEY_ID_BYTES).toString();
    if (input.KeyId !== undefined && input.KeyId !== blobKey && input.KeyId !== `arn:aws:kms:${LOCAL_REGION}:${LOCAL_ACCOUNT_ID}:key/${blobKey}`) {
      throw new KmsError('IncorrectKeyException', 'The key ID in the request does not identify a CMK that can perform this operation.');
    }
    checkKey(blobKey);
    const ivAt = MAGIC.length + KEY_ID_BYTES;
    const decipher = createDecipheriv('aes-256-gcm', material, blob.subarray(ivAt, ivAt + IV_BYTES)).setAAD(aad(input.EncryptionContext));
    decipher.setAuthTag(blob.subarray(ivAt + IV_BYTES, headerBytes));
    try {
      const plaintext = Buffer.concat([decipher.update(blob.subarray(headerBytes)), decipher.final()]);
      return { Plaintext: plaintext.toString('base64'), KeyId: keyArn, EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    } catch {
      // A wrong context, or a changed blob: KMS tells the two apart no more than this.
      throw new KmsError('InvalidCiphertextException', '');
    }
  };

  const operations: Record<string, (input: Json) => Json> = { 'TrentService.Encrypt': encrypt, 'TrentService.Decrypt': decrypt };

  const answer = (req: IncomingMessage, res: ServerResponse, body: Buffer): void => {
    const json = { 'content-type': 'application/x-amz-json-1.1' };
    try {
      const operation = operations[String(req.headers['x-amz-target'])];
      if (!operation) throw new KmsError('UnsupportedOperationException', `the local KMS does not answer ${String(req.headers['x-amz-target'])}`);
      const output = operation(JSON.parse(body.toString('utf8') || '{}') as Json);
      res.writeHead(200, json);
      res.end(JSON.stringify(output));
    } catch (err) {
      const type = err instanceof KmsError ? err.type : 'KMSInternalException';
      res.writeHead(err instanceof KmsError ? 400 : 500, { ...json, 'x-amzn-errortype': type });
      res.end(JSON.stringify({ __type: type, message: (err as Error).message }));
    }
  };

  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => answer(req, res, Buffer.concat(chunks)));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    keyArn,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
