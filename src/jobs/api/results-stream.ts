// A job's result rows as NDJSON without holding them all: rows are read from PostgreSQL a keyset page at a
// time (the order of every other form) and turned into lines only as fast as the client takes them.
//
// Fastify pipes this stream into the response: when `reply.raw.write()` returns false the pipe stops reading
// until 'drain', this stream's buffer fills, `push()` returns false, and no further page is read. So the
// process holds one page of rows and about one buffer of text per stream, whatever the job's size. No
// connection or transaction is held between pages; a client that goes away (or stops reading until the
// listener's idle timeout closes its socket) destroys the stream and no further page is read.
import { Readable } from 'node:stream';
import type { ResultPosition, ResultRow } from '../store/index.ts';

/**
 * About this much text per read from PostgreSQL: the rows of a read stay alive while they are written, so a
 * read's row count follows the size of the rows read so far: small rows (ping) come 500 at a time, rows with
 * large payloads a few dozen, and what a stream holds stays near one such read whatever the rows are.
 */
const PAGE_CHARS = 256 * 1024;
const FIRST_PAGE_ROWS = 50;
const MIN_PAGE_ROWS = 10;
const MAX_PAGE_ROWS = 500;
/** Text handed to the response at a time, and this stream's buffer. */
const CHUNK_CHARS = 64 * 1024;

export type PositionedRow = ResultRow & ResultPosition;

export interface ResultLines extends Readable {
  /** Rows handed to the response so far. */
  readonly rowsSent: number;
}

/**
 * `readPage(after, limit)` reads the rows after a position (all from the start when undefined); `line` turns one
 * into its JSON text, without the newline.
 */
export function resultLines(
  readPage: (after: ResultPosition | undefined, limit: number) => Promise<PositionedRow[]>,
  line: (row: PositionedRow) => string,
): ResultLines {
  let rows: PositionedRow[] = [];
  let next = 0;
  let after: ResultPosition | undefined;
  let lastPage = false;
  let filling = false;
  let rowsSent = 0;
  let charsSent = 0;
  let pageRows = FIRST_PAGE_ROWS;

  const stream = new Readable({
    highWaterMark: CHUNK_CHARS,
    read() {
      if (!filling) void fill();
    },
  });

  // Pushes chunks until the stream's buffer is full (then waits for the next read()) or the rows end.
  async function fill(): Promise<void> {
    filling = true;
    try {
      while (!stream.destroyed) {
        if (next === rows.length) {
          if (lastPage) {
            stream.push(null);
            return;
          }
          if (rowsSent > 0) pageRows = Math.min(MAX_PAGE_ROWS, Math.max(MIN_PAGE_ROWS, Math.round(PAGE_CHARS / (charsSent / rowsSent))));
          rows = await readPage(after, pageRows);
          next = 0;
          lastPage = rows.length < pageRows;
          const last = rows.at(-1);
          if (last) after = { position: last.position, source: last.source };
          continue;
        }
        let chunk = '';
        while (next < rows.length && chunk.length < CHUNK_CHARS) {
          chunk += `${line(rows[next]!)}\n`;
          next++;
          rowsSent++;
        }
        charsSent += chunk.length;
        if (!stream.push(chunk)) return;
      }
    } catch (err) {
      stream.destroy(err as Error);
    } finally {
      filling = false;
    }
  }

  return Object.defineProperty(stream, 'rowsSent', { get: () => rowsSent }) as ResultLines;
}
