// The sources a worker runs: each descriptor's adapter, built from the settings it read, with its requests
// measured under its provider.
import { measured } from '../metrics.ts';
import type { AdapterDeps, Source, SourceRegistry } from '../sources/index.ts';

export function createSources(
  registry: SourceRegistry,
  settings: Readonly<Record<string, unknown>>,
  deps: AdapterDeps,
): Map<string, Source> {
  const sources = new Map<string, Source>();
  for (const descriptor of registry.descriptors) {
    const adapter = descriptor.createAdapter(settings[descriptor.name], {
      ...deps,
      providerHttp: measured(deps.providerHttp, descriptor.provider),
      outbound: measured(deps.outbound, descriptor.provider),
    });
    sources.set(descriptor.name, {
      name: descriptor.name,
      batchSize: descriptor.batchSize,
      billing: descriptor.billing,
      fetch: (domains, context) => adapter.fetch(domains, context),
    });
  }
  return sources;
}
