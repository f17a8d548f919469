import { lookup } from 'node:dns/promises';

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>;

/** Every address the system resolver gives for a name, in its own order. */
export const resolveHost: Resolver = async (hostname) => {
  const answers = await lookup(hostname, { all: true, verbatim: true });
  return answers.map(({ address, family }) => ({ address, family: family === 6 ? 6 : 4 }));
};
