import { mkdtemp, rm } from 'node:fs/promises';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateTableCommand, DynamoDBClient, PutItemCommand, QueryCommand, ScanCommand } from '@aws-sdk/client-dynamodb';
import dynalite from 'dynalite';
import { Level } from 'level';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { closeLevelIteratorsOnReturn } from '../../local/emulator-worker';

interface LevelIterator {
  next(): Promise<unknown>;
}

describe('dynalite on LevelDB, as the emulator thread runs it', () => {
  const opened: LevelIterator[] = [];
  const values = Object.getOwnPropertyDescriptor(Level.prototype, 'values');
  let dir: string;
  let server: Server;
  let client: DynamoDBClient;

  beforeAll(async () => {
    closeLevelIteratorsOnReturn();
    // Sees every iterator dynalite opens, after the emulator thread's change to them.
    const open = Level.prototype.values as (this: Level, ...args: unknown[]) => LevelIterator;
    Level.prototype.values = function (this: Level, ...args: unknown[]) {
      const iterator = open.apply(this, args);
      opened.push(iterator);
      return iterator;
    } as typeof Level.prototype.values;
    dir = await mkdtemp(join(tmpdir(), 'hookgate-dynalite-'));
    server = dynalite({ path: dir, createTableMs: 0 });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    client = new DynamoDBClient({
      endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
      region: 'us-east-1',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    await client.send(
      new CreateTableCommand({
        TableName: 'items',
        BillingMode: 'PAY_PER_REQUEST',
        AttributeDefinitions: [
          { AttributeName: 'pk', AttributeType: 'S' },
          { AttributeName: 'sk', AttributeType: 'S' },
        ],
        KeySchema: [
          { AttributeName: 'pk', KeyType: 'HASH' },
          { AttributeName: 'sk', KeyType: 'RANGE' },
        ],
      }),
    );
    for (const sk of ['a', 'b', 'c', 'd']) await client.send(new PutItemCommand({ TableName: 'items', Item: { pk: { S: 'p' }, sk: { S: sk } } }));
  });

  afterAll(async () => {
    if (values) Object.defineProperty(Level.prototype, 'values', values);
    else delete (Level.prototype as { values?: unknown }).values;
    client.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await rm(dir, { recursive: true, force: true });
  });

  // An iterator left open stays in the database's open resources and holds LevelDB's memtables and
  // files of its moment: at 20 events/s the gateway's resident memory grew by megabytes a second.
  it('closes the iterator of every Query and Scan, whether read to its end or cut short by a Limit', async () => {
    const query = { TableName: 'items', KeyConditionExpression: 'pk = :p', ExpressionAttributeValues: { ':p': { S: 'p' } } };
    opened.length = 0;

    const all = await client.send(new QueryCommand(query));
    const firstTwo = await client.send(new QueryCommand({ ...query, Limit: 2 }));
    const scanned = await client.send(new ScanCommand({ TableName: 'items', Limit: 1 }));

    expect([all.Count, firstTwo.Count, scanned.Count]).toEqual([4, 2, 1]);
    expect(opened).toHaveLength(3);
    // A closed iterator refuses to read; one left open would answer with its next item, or the end.
    await vi.waitFor(() => Promise.all(opened.map((iterator) => expect(iterator.next()).rejects.toMatchObject({ code: 'LEVEL_ITERATOR_NOT_OPEN' }))));
  });
});
