import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { type JrbLine, type JrbRecord, JrbRefused, readJrb } from '../../src/payouts/index.ts';
import { jrb, jrbText, type Operation, V1_LABELS, V2_LABELS } from './jrb-file.ts';

const ORDER = '6f0c5d2e-1b7a-4c33-9d0e-5a8b7c6d5e4f';
const OPS: Operation[] = [
  { orderId: ORDER, transactionId: '482915', type: 'DT', amount: 12_000, commission: 193 },
  { orderId: ORDER, transactionId: '482977', type: 'CT', amount: 4_000, commission: 0 },
];

async function read(source: Iterable<Uint8Array> | AsyncIterable<Uint8Array>): Promise<JrbRecord[]> {
  const out: JrbRecord[] = [];
  for await (const r of readJrb(source)) out.push(r);
  return out;
}

const lines = (records: readonly JrbRecord[]) =>
  records.filter((r) => r.kind === 'matching').map((r) => (r as { value: JrbLine }).value);

/** A file fed a few bytes at a time: records cut anywhere, as a stream delivers them. */
function* inPieces(bytes: Buffer, size: number): Generator<Uint8Array> {
  for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
}

async function refused(bytes: Buffer | string, line: number, reason: RegExp): Promise<void> {
  const source = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  await assert.rejects(read([source]), (err: unknown) => {
    assert.ok(err instanceof JrbRefused, String(err));
    assert.equal(err.line, line, err.message);
    assert.match(err.reason, reason);
    return true;
  });
}

describe("Lyra's bank reconciliation report, read by its labels", () => {
  test('V2 as documented: title, each line with its amounts, fee and net; the end and its count', async () => {
    const records = await read([jrb(OPS)]);
    assert.deepEqual(records[0], { kind: 'title', shop: 'HOTEL DES TESTS', version: 'TABLE_V2', line: 1 });
    assert.deepEqual(records.at(-1), { kind: 'end', line: 5, count: 2 });
    const [debit, credit] = lines(records);
    assert.deepEqual(debit, {
      line: 3,
      transactionId: '482915',
      orderId: ORDER,
      direction: 'debit',
      amount: 12_000,
      fee: 193,
      net: 11_807,
      currency: 'EUR',
      remittanceDate: '2026-11-21',
      remittanceNb: '000042',
      paymentDate: '2026-11-20',
      operationNumber: '1',
      paymentMethod: 'CB',
      matchStatus: 'MATCH_OK',
      key: `2026-11-20|482915|DT|1|${ORDER}|12000`,
    });
    assert.equal(credit?.direction, 'credit');
    assert.equal(credit?.net, -4_000);
  });

  test('V1 (CARD_TYPE) and V3, LF or CRLF, columns in any order: the same lines', async () => {
    const v2 = lines(await read([jrb(OPS)]));
    const v1 = lines(await read([jrb(OPS, { version: 'TABLE_V1', eol: '\n' })]));
    const shuffled = [...V2_LABELS].reverse();
    const v3 = lines(await read([jrb(OPS, { version: 'TABLE_V3', labels: shuffled })]));
    assert.deepEqual(v1, v2);
    assert.deepEqual(v3, v2);
    assert.equal(V1_LABELS.length, 21, 'the 22 documented positions, ENTETE itself the first');
  });

  test('Latin-1 or UTF-8 (a BOM too); a stream cut anywhere reads the same', async () => {
    const latin = await read([jrb(OPS, { shop: 'HÔTEL DU LAC ÉTÉ', encoding: 'latin1' })]);
    assert.equal((latin[0] as { shop: string }).shop, 'HÔTEL DU LAC ÉTÉ');
    const utf = await read([Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), jrb(OPS, { shop: 'HÔTEL DU LAC ÉTÉ' })])]);
    assert.equal((utf[0] as { shop: string }).shop, 'HÔTEL DU LAC ÉTÉ');
    const whole = await read([jrb(OPS)]);
    for (const size of [1, 2, 7, 64])
      assert.deepEqual(await read(inPieces(jrb(OPS), size)), whole, `pieces of ${size}`);
  });

  test('optional amounts: no commission, no net, neither', async () => {
    const [onlyNet, onlyFee, neither] = lines(
      await read([
        jrb([
          { ...(OPS[0] as Operation), commission: null, net: 11_800 },
          { ...(OPS[0] as Operation), transactionId: '482916', commission: 200, net: null },
          { ...(OPS[0] as Operation), transactionId: '482917', commission: null, net: null },
        ]),
      ]),
    );
    assert.deepEqual([onlyNet?.fee, onlyNet?.net], [200, 11_800]);
    assert.deepEqual([onlyFee?.fee, onlyFee?.net], [200, 11_800]);
    assert.deepEqual([neither?.fee, neither?.net], [0, 12_000]);
  });

  test('a file that is not the layout is refused, naming the line and what is wrong there', async () => {
    const good = jrbText(OPS);
    const replace = (from: string, to: string) => good.replace(from, to);
    await refused('', 0, /empty/);
    await refused(replace('TITRE;', 'TITLE;'), 1, /starts with its TITRE record/);
    await refused(replace('TABLE_V2', 'TABLE_V9'), 1, /TABLE_V9.*none payreq reads/);
    await refused(replace('ENTETE;', 'HEADER;'), 2, /followed by ENTETE/);
    await refused(replace(';ORDER_ID;', ';ORDRE;'), 2, /ENTETE lacks ORDER_ID/);
    await refused(replace(';DT;', ';XX;'), 3, /OPERATION_TYPE "XX"/);
    await refused(replace(';12000;MATCH_OK', ';120.00;MATCH_OK'), 3, /smallest unit/);
    await refused(replace(';20261121;', ';20261131;'), 3, /REMITTANCE_DATE "20261131" is not a date/);
    await refused(replace(';978;CB;', ';826;CB;'), 3, /CURRENCY_CODE "826"/);
    await refused(replace(';11807;193;', ';11800;193;'), 3, /do not add up/);
    // Signed amounts are refused whole, naming the line, never turned positive; a payment's net
    // above its gross (a negative fee) too.
    await refused(replace(';12000;MATCH_OK', ';-12000;MATCH_OK'), 3, /BRUT_AMOUNT "-12000" is negative/);
    await refused(replace(';11807;193;', ';-11807;193;'), 3, /NET_AMOUNT "-11807" is negative/);
    await refused(replace(';11807;193;', ';11807;-193;'), 3, /COMMISSION_AMOUNT "-193" is negative/);
    await refused(replace(';11807;193;', ';12193;;'), 3, /NET_AMOUNT 12193 is above BRUT_AMOUNT 12000/);
    await refused(replace(';482977;', ';;'), 4, /TRANSACTION_ID is empty/);
    await refused(replace('FIN;2', 'FIN;3'), 5, /FIN counts "3".*holds 2/);
    await refused(`${good}MATCHING;x\r\n`, 6, /after the FIN record/);
    await refused(good.replace('FIN;2\r\n', ''), 5, /ends before its FIN record/);
    await refused(
      replace('MATCHING;FR;012345678901234;1234567;20261120;482977', 'TOTAL;FR'),
      4,
      /no record of the report/,
    );
    await refused(replace('HOTEL DES TESTS', 'HOTEL\u0000'), 1, /control character/);
    await refused(`${good.slice(0, 40)}${'x'.repeat(20_000)}`, 1, /longer than/);
  });

  test('FIN without a count is read; blank lines are skipped', async () => {
    const records = await read([jrb(OPS, { finCount: null })]);
    assert.equal(lines(records).length, 2);
    const spaced = jrbText(OPS).replace('ENTETE', '\r\nENTETE');
    assert.equal(lines(await read([Buffer.from(spaced)])).length, 2);
  });
});
