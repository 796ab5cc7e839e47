import { ARROW_STREAM_CONTENT_TYPE } from '@kneeboard/contracts';
import { columnsToArrays, encodeArrowColumns, type EventColumns } from '@kneeboard/event-wire';

/** One API call's body exactly as it is sent — and spooled, so a replay sends the same bytes. */
export interface WireBody {
  contentType: string;
  /** Query string without `?`; '' for none. */
  query: string;
  bytes: Uint8Array;
}

/** How event batches travel: Arrow IPC (default; compact, no per-event work at the API) or the JSON batch. */
export type WireFormat = 'arrow' | 'json';

export function jsonBody(value: unknown): WireBody {
  return { contentType: 'application/json', query: '', bytes: Buffer.from(JSON.stringify(value), 'utf8') };
}

/** An event batch in the chosen format: Arrow with batch_id/agent_id in the query string, or the JSON batch. */
export function batchBody(format: WireFormat, batchId: string, agentId: string, columns: EventColumns): WireBody {
  if (format === 'json') return jsonBody({ batch_id: batchId, agent_id: agentId, ...columnsToArrays(columns) });
  return {
    contentType: ARROW_STREAM_CONTENT_TYPE,
    query: new URLSearchParams({ batch_id: batchId, agent_id: agentId }).toString(),
    bytes: encodeArrowColumns(columns),
  };
}
