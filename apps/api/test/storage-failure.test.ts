import { describe, expect, it } from 'vitest';
import { SharedInsertFailed } from '@kneeboard/clickhouse';
import { errorBody } from '../src/errors.ts';
import { storageFailure } from '../src/ingest/storage-failure.ts';

/** ClickHouse's answer to the probe's Arrow body (buffer length patched to 2^40), as chDB gave it. */
const incorrectData = Object.assign(
  new Error(
    'Arrow IPC buffer (offset 0, length 1099511627776) is out of the message body of size 168: (in file/uri /dev/shm/kneeboard-batch-25636-c8ad5333-26c8-4a34-942d-94ea91a5504d.arrow): While executing ArrowIPCBlockInputFormat: While executing File. ',
  ),
  { code: '117', type: 'INCORRECT_DATA' },
);

describe('storageFailure', () => {
  it('answers a body storage could not read, inserted alone, with a final 400 naming the body', () => {
    const err = storageFailure(incorrectData, 'the batch');
    expect(err.statusCode).toBe(400);
    expect(err.field).toBe('body');
    expect(err.retryAfterS).toBeUndefined();
    expect(err.message).toMatch(/out of the message body of size 168.*sending it again cannot help/);
  });

  it('does not blame every batch of a group for one of them: a 503 to send again', () => {
    const err = storageFailure(new SharedInsertFailed(incorrectData), 'the batch');
    expect(err.statusCode).toBe(503);
    expect(err.retryAfterS).toBe(1);
  });

  it('keeps a full disk a 507, in a group too', () => {
    const full = Object.assign(new Error('Cannot reserve 1.00 MiB, not enough space'), { code: '243', type: 'NOT_ENOUGH_SPACE' });
    expect(storageFailure(full, 'the batch').statusCode).toBe(507);
    expect(storageFailure(new SharedInsertFailed(full), 'the batch').statusCode).toBe(507);
  });

  it('leaves no server path in any answer', () => {
    const body = errorBody(400, storageFailure(incorrectData, 'the batch').message, 'body', [{ field: 'body', message: 'in /var/lib/kneeboard/x.arrow' }]);
    expect(JSON.stringify(body)).not.toMatch(/\/dev\/shm|\/var\/lib|kneeboard-batch/);
    expect(body.message).toContain('(a server path)');
    expect(errorBody(400, 'POST /api/v1/runs/{id}/steps first; see http://127.0.0.1:4000/api/v1/runs').message).toBe('POST /api/v1/runs/{id}/steps first; see http://127.0.0.1:4000/api/v1/runs');
  });
});
