// What a fault scenario says when it ends: what it injected, under what load, and what was lost or duplicated.
// Printed as one line (the harness's output) and kept in test/faults/results/ for docs/reliability.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export interface ScenarioReport {
  scenario: string;
  load: string;
  injected: string;
  lost: number;
  duplicated: number;
  /** From the fault to normal service again, when that is what the scenario measures. */
  recoverySeconds?: number;
  details?: Record<string, unknown>;
}

export function report(r: ScenarioReport): void {
  const recovery = r.recoverySeconds === undefined ? '' : `, recovered in ${r.recoverySeconds.toFixed(1)} s`;
  console.log(`FAULT ${r.scenario}: injected ${r.injected} under ${r.load} → lost ${r.lost}, duplicated ${r.duplicated}${recovery}`);
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(`${dir}${r.scenario}.json`, `${JSON.stringify({ at: new Date().toISOString(), ...r }, null, 2)}\n`);
}
