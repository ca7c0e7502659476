// The cost rules of src/jobs/sources/cost.ts: what a request costs, how a row adds its requests, how a batch
// call is shared among its rows, and the estimate by published price.
import { describe, expect, it } from 'vitest';
import { addSpend, estimateCost, JOB_SOURCES, requestCost, splitSpend, type Spend } from '../../../src/jobs/sources/index.ts';

const source = (name: string) => JOB_SOURCES.find((s) => s.name === name)!;
const ahrefs = source('ahrefs_backlinks').billing;
const moz = source('moz').billing;
const seokicks = source('seokicks').billing;
const answer = (status: number, headers: Record<string, string> = {}) => ({ status, headers });

describe('what one request costs', () => {
  it('is what Ahrefs says the request consumed (x-api-units-cost-total-actual) before what it should cost', () => {
    const cached = { 'x-api-units-cost-total': '50', 'x-api-units-cost-total-actual': '0', 'x-api-cache': 'hit' };
    expect(requestCost(ahrefs, answer(200, cached))).toEqual({ amount: 0, basis: 'reported', calls: 1 });
    const billedAnswer = { 'x-api-units-cost-total': '60', 'x-api-units-cost-total-actual': '60' };
    expect(requestCost(ahrefs, answer(200, billedAnswer))).toEqual({ amount: 60, basis: 'reported', calls: 1 });
  });

  it('is what Ahrefs reports in x-api-units-cost-total, whatever its price', () => {
    expect(requestCost(ahrefs, answer(200, { 'x-api-units-cost-total': '7' }))).toEqual({ amount: 7, basis: 'reported', calls: 1 });
    expect(requestCost(ahrefs, answer(200, { 'x-api-units-cost-total': '0' }))).toEqual({ amount: 0, basis: 'reported', calls: 1 });
  });

  it('is the published price for a 2xx without a usable report', () => {
    expect(requestCost(ahrefs, answer(200))).toEqual({ amount: 50, basis: 'computed', calls: 1 });
    expect(requestCost(ahrefs, answer(200, { 'x-api-units-cost-total': 'many' }))).toEqual({ amount: 50, basis: 'computed', calls: 1 });
    expect(requestCost(moz, answer(200), 10)).toEqual({ amount: 10, basis: 'computed', calls: 1 });
    expect(requestCost(seokicks, answer(200), 1)).toEqual({ amount: 1, basis: 'computed', calls: 1 });
  });

  it('is nothing for a refusal, a request without an answer, or a free source', () => {
    expect(requestCost(ahrefs, answer(429))).toEqual({ amount: 0, basis: 'computed', calls: 1 });
    expect(requestCost(moz, answer(500), 10)).toEqual({ amount: 0, basis: 'computed', calls: 1 });
    expect(requestCost(seokicks, undefined)).toEqual({ amount: 0, basis: 'computed', calls: 1 });
    expect(requestCost(source('wayback').billing, answer(200))).toEqual({ amount: 0, basis: 'computed', calls: 1 });
  });
});

describe("a row's requests added together", () => {
  const reported = (amount: number): Spend => ({ amount, basis: 'reported', calls: 1 });
  const computed = (amount: number): Spend => ({ amount, basis: 'computed', calls: 1 });

  it('stay reported while every part that adds to the amount was reported', () => {
    expect(addSpend(reported(50), reported(7))).toEqual({ amount: 57, basis: 'reported', calls: 2 });
    // A refused request (0 by our rule) does not make a reported amount a computed one.
    expect(addSpend(computed(0), reported(50))).toEqual({ amount: 50, basis: 'reported', calls: 2 });
    expect(addSpend(reported(50), computed(0))).toEqual({ amount: 50, basis: 'reported', calls: 2 });
  });

  it('are computed as soon as a part of the amount is ours', () => {
    expect(addSpend(reported(50), computed(50))).toEqual({ amount: 100, basis: 'computed', calls: 2 });
    expect(addSpend(computed(0), computed(0))).toEqual({ amount: 0, basis: 'computed', calls: 2 });
  });
});

describe('a batch call shared among its rows', () => {
  it('adds up to the call exactly, the remainder one unit each to the first rows', () => {
    expect(splitSpend({ amount: 10, basis: 'computed', calls: 1 }, 3)).toEqual([
      { amount: 4, basis: 'computed', calls: 1 },
      { amount: 3, basis: 'computed', calls: 0 },
      { amount: 3, basis: 'computed', calls: 0 },
    ]);
    for (let n = 1; n <= 12; n++) {
      for (const amount of [0, 1, 7, 10, 11, 50, 99, 1001]) {
        const shares = splitSpend({ amount, basis: 'reported', calls: 1 }, n);
        expect(shares).toHaveLength(n);
        expect(shares.reduce((sum, s) => sum + s.amount, 0)).toBe(amount);
        expect(shares.reduce((sum, s) => sum + s.calls, 0)).toBe(1);
        // Integers, never more than one unit apart, larger ones first.
        expect(shares.every((s, i) => Number.isInteger(s.amount) && (i === 0 || s.amount <= shares[i - 1]!.amount))).toBe(true);
        expect(shares[0]!.amount - shares.at(-1)!.amount).toBeLessThanOrEqual(1);
      }
    }
  });

  it('keeps a fraction on the first row, so the sum stays exact', () => {
    const shares = splitSpend({ amount: 10.5, basis: 'reported', calls: 1 }, 4);
    expect(shares.map((s) => s.amount)).toEqual([3.5, 3, 2, 2]);
  });
});

describe('the estimate by published price', () => {
  it('counts each source in its unit', () => {
    expect(estimateCost(source('ahrefs_backlinks'), 4)).toBe(200);
    expect(estimateCost(source('ahrefs_traffic'), 4)).toBe(600);
    expect(estimateCost(source('moz'), 23)).toBe(23);
    expect(estimateCost(source('seokicks'), 4)).toBe(4);
    expect(estimateCost(source('wayback'), 4)).toBe(0);
    expect(estimateCost(source('ping'), 4)).toBe(0);
  });
});
