/**
 * Render -> parse round trip for each supported template/parser pair. A
 * vector must come back with the same arguments (as Python values), unless
 * the loss is a documented property of the template or of vLLM's parser.
 */
import * as fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { roundTrip, roundTripPairs, ROUND_TRIP_VECTORS } from '../../src/golden/roundtrip';
import { goldenDirs } from '../../src/golden/suite';

const templatesDir = goldenDirs().templates;

const PAIRS = roundTripPairs(templatesDir);

for (const pair of PAIRS) {
  describe.skipIf(pair.needsShared && !fs.existsSync(pair.template))(`round trip: ${pair.name} + ${pair.parser}`, () => {
    for (const v of ROUND_TRIP_VECTORS) {
      it(v.id, () => {
        const r = roundTrip({ template: pair.template, parser: pair.parser, callId: pair.callId }, v);
        const known = pair.known[v.id];
        const detail = `${r.status}: expected ${r.expected}, got ${r.actual ?? '-'} ${r.detail ?? ''}`;
        expect(r.status, detail).toBe(known ? known[0] : 'exact');
      });
    }
  });
}
