// The fake providers of src/dev/fakes/ as the tests run them, and the settings that send a worker to them: the
// credentials each fake expects are written here once, so a test names only the fakes it needs and their options.
import { startAhrefsFake } from '../../src/dev/fakes/ahrefs.ts';
import { startMozFake } from '../../src/dev/fakes/moz.ts';
import { startSeokicksFake } from '../../src/dev/fakes/seokicks.ts';
import type { Fake, FakeOptions } from '../../src/dev/fakes/server.ts';
import { startWaybackFake } from '../../src/dev/fakes/wayback.ts';

/** The Ahrefs fake answers both Ahrefs sources (`ahrefs_backlinks`, `ahrefs_traffic`). */
export type FakeName = 'seokicks' | 'moz' | 'ahrefs' | 'wayback';

const FAKES: Record<FakeName, { start(options: FakeOptions): Promise<Fake>; settings(url: string): Record<string, string> }> = {
  seokicks: {
    start: (options) => startSeokicksFake({ ...options, apiKey: 'sk' }),
    settings: (url) => ({ SEOKICKS_API_KEY: 'sk', SEOKICKS_BASE_URL: url }),
  },
  moz: {
    start: (options) => startMozFake({ ...options, token: 'mz' }),
    // The real rate (one call per 10 s) would make a test of a few batches minutes long.
    settings: (url) => ({ MOZ_TOKEN: 'mz', MOZ_BASE_URL: url, JOBS_MOZ_RATE: '20' }),
  },
  ahrefs: {
    start: (options) => startAhrefsFake({ ...options, apiKey: 'ah' }),
    settings: (url) => ({ AHREFS_API_KEY: 'ah', AHREFS_BASE_URL: `${url}/v3` }),
  },
  wayback: {
    start: (options) => startWaybackFake(options),
    // Likewise the real 0.4 requests/s.
    settings: (url) => ({ WAYBACK_BASE_URL: url, JOBS_WAYBACK_RATE: '50' }),
  },
};

export interface Fakes<K extends FakeName> {
  fakes: Record<K, Fake>;
  /** The settings that point the sources at these fakes (with rates a test can wait for). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/** Starts the fakes named, each with its options. */
export async function startFakes<K extends FakeName>(options: Record<K, FakeOptions>): Promise<Fakes<K>> {
  const names = Object.keys(options) as K[];
  const started = await Promise.all(names.map((name) => FAKES[name].start(options[name])));
  const fakes = Object.fromEntries(names.map((name, i) => [name, started[i]!])) as Record<K, Fake>;
  return {
    fakes,
    env: Object.assign({}, ...names.map((name) => FAKES[name].settings(fakes[name].url))) as Record<string, string>,
    close: async () => {
      await Promise.all(started.map((fake) => fake.close()));
    },
  };
}
