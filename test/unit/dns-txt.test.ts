import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { fileTxtResolver, txtResolverFrom } from '../../lambdas/adapters/dns-txt';

const dnsError = (code: string) => Object.assign(new Error(`queryTxt ${code} x`), { code });

beforeEach(() => {
  vi.restoreAllMocks();
  vi.spyOn(console, 'log').mockImplementation(() => undefined);
});

describe('TXT lookups', () => {
  it('joins the character strings of each record (long records come in 255-byte chunks)', async () => {
    const resolve = txtResolverFrom(async () => [['hgv_abc', 'def'], ['v=spf1 -all']]);
    expect(await resolve('_hookgate-challenge.example.com')).toEqual(['hgv_abcdef', 'v=spf1 -all']);
  });

  it.each(['ENOTFOUND', 'ENODATA', 'ESERVFAIL', 'ECONNREFUSED', 'ETIMEOUT'])('answers %s as no records', async (code) => {
    const resolve = txtResolverFrom(async () => {
      throw dnsError(code);
    });
    expect(await resolve('_hookgate-challenge.example.com')).toEqual([]);
  });

  it('gives up after its timeout and answers no records', async () => {
    // The lookup never answers: the test ends only because the timeout fires.
    const resolve = txtResolverFrom(() => new Promise(() => undefined), 50);
    expect(await resolve('_hookgate-challenge.slow.example.com')).toEqual([]);
  });
});

describe('the local/test override file', () => {
  let dir: string;
  let file: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'hookgate-dns-'));
    file = join(dir, 'txt.json');
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('answers from the file, read on every lookup, names compared without case or trailing dot', async () => {
    const resolve = fileTxtResolver(file);
    await writeFile(file, JSON.stringify({ '_hookgate-challenge.Example.com.': 'tok', 'other.example.com': ['a', 'b'] }));
    expect(await resolve('_hookgate-challenge.example.com')).toEqual(['tok']);
    expect(await resolve('OTHER.example.com.')).toEqual(['a', 'b']);
    expect(await resolve('missing.example.com')).toEqual([]);
    await writeFile(file, JSON.stringify({}));
    expect(await resolve('_hookgate-challenge.example.com')).toEqual([]);
  });

  it('fails loudly on a file that is not a JSON object', async () => {
    await writeFile(file, '["not", "an object"]');
    await expect(fileTxtResolver(file)('x.example.com')).rejects.toThrow(/JSON object/);
  });
});
