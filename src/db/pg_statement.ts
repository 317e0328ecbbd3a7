// One statement on a pg connection, its rows as arrays of parsed values. pg's own Query spent
// about 30 µs more of client CPU on each run of a 64-column project read (about 100 µs in all):
// it copies its config object descriptor by descriptor, and builds a template object of every
// column, unused when rows come as arrays. This is a "submittable" (pg's interface for custom
// queries, as pg-cursor uses it): the same extended-protocol messages, and nothing else.
import pg from 'pg';
import { prepareValue } from 'pg/lib/utils.js';

interface Field {
  name: string;
  dataTypeID: number;
  format: string;
}

/** What a statement answers: like pg's result in array row mode (rows still arrays, fields for their names). */
export interface ArrayResult {
  command: string;
  rowCount: number | null;
  rows: unknown[][];
  fields: Field[];
}

/** The tail of a CommandComplete tag: `SELECT 3`, `INSERT 0 1`, `UPDATE 2`. */
const COMMAND_TAG = /^([A-Za-z]+)(?: (\d+))?(?: (\d+))?/;

type Connection = {
  stream: { cork?: () => void; uncork?: () => void };
  parsedStatements: Record<string, string>;
  submittedNamedStatements: Record<string, string>;
  parse(m: { text: string; name?: string; types: number[] }): void;
  bind(m: { portal: string; statement?: string; values: unknown[]; valueMapper: (v: unknown) => unknown }): void;
  describe(m: { type: 'P'; name: string }): void;
  execute(m: { portal: string; rows: number }): void;
  sync(): void;
  query(text: string): void;
  sendCopyFail(message: string): void;
};

type Parser = (raw: string) => unknown;

/**
 * The columns of each named statement a connection has run, with their parsers: a named
 * statement is described once per connection, not on every run (PostgreSQL then sends no row
 * description, about 4 % of a project GET's client CPU). Its columns stay those: when its table
 * changes, PostgreSQL refuses to run it and dialect.ts prepares the text again under a new name.
 */
const described = new WeakMap<Connection, Map<string, { fields: Field[]; parsers: Parser[] }>>();

function describedOn(connection: Connection) {
  let known = described.get(connection);
  if (!known) described.set(connection, (known = new Map()));
  return known;
}

export class ArrayStatement {
  private readonly result: ArrayResult = { command: '', rowCount: null, rows: [], fields: [] };
  private parsers: Parser[] = [];
  private connection: Connection | null = null;
  /** A value that failed to parse: reported when the server is done with the statement. */
  private failed: Error | null = null;
  callback!: (err: Error | null, result?: ArrayResult) => void;

  /** `name`: prepared once per connection under that name; none: parsed on every run. */
  constructor(
    readonly text: string,
    private readonly values: readonly unknown[],
    readonly name: string | undefined,
  ) {}

  /** Runs on a client through `query`, its own query method (pg queues it behind the client's others). */
  run(query: (submittable: ArrayStatement) => unknown): Promise<ArrayResult> {
    return new Promise<ArrayResult>((resolve, reject) => {
      this.callback = (err, result) => (err ? reject(err) : resolve(result!));
      query(this);
    }).catch((err: Error) => {
      // The server's error arrives from the socket: its stack is made again here, where the awaits of the code that ran the statement show.
      Error.captureStackTrace(err);
      throw err;
    });
  }

  // ---- called by pg's client ----

  submit(connection: Connection): null {
    const name = this.name;
    // Without values or a name, the simple protocol, as pg's Query: a text may then hold several statements (migrations).
    if (!name && this.values.length === 0) {
      connection.query(this.text);
      return null;
    }
    // One write for the whole exchange, as pg's Query does.
    connection.stream.cork?.();
    try {
      if (!name || (connection.parsedStatements[name] === undefined && connection.submittedNamedStatements[name] === undefined)) {
        connection.parse({ text: this.text, name, types: [] });
        if (name) connection.submittedNamedStatements[name] = this.text;
      }
      connection.bind({ portal: '', statement: name, values: this.values as unknown[], valueMapper: prepareValue });
      const known = name === undefined ? undefined : describedOn(connection).get(name);
      if (known) {
        this.result.fields = known.fields;
        this.parsers = known.parsers;
      } else {
        this.connection = connection;
        connection.describe({ type: 'P', name: '' });
      }
      connection.execute({ portal: '', rows: 0 });
      connection.sync();
    } finally {
      connection.stream.uncork?.();
    }
    return null;
  }

  handleRowDescription(msg: { fields: Field[] }): void {
    this.result.fields = msg.fields;
    this.parsers = msg.fields.map((f) => pg.types.getTypeParser(f.dataTypeID, f.format as 'text'));
    if (this.name !== undefined && this.connection) describedOn(this.connection).set(this.name, { fields: msg.fields, parsers: this.parsers });
  }

  handleDataRow(msg: { fields: unknown[] }): void {
    if (this.failed) return;
    // The message's own array (made for this row, read by no one else) becomes the row: one array less per row.
    const row = msg.fields;
    try {
      for (let i = 0; i < row.length; i++) if (row[i] !== null) row[i] = this.parsers[i]!(row[i] as string);
    } catch (e) {
      this.failed = e as Error;
      return;
    }
    this.result.rows.push(row);
  }

  handleCommandComplete(msg: { text: string }): void {
    const m = COMMAND_TAG.exec(msg.text);
    if (!m) return;
    this.result.command = m[1]!;
    const count = m[3] ?? m[2];
    if (count !== undefined) this.result.rowCount = Number(count);
  }

  handleReadyForQuery(): void {
    if (this.failed) this.callback(this.failed);
    else this.callback(null, this.result);
  }

  handleError(err: Error): void {
    this.callback(this.failed ?? err);
  }

  handleEmptyQuery(): void {}
  handlePortalSuspended(): void {}
  handleCopyInResponse(connection: Connection): void {
    connection.sendCopyFail('No source stream defined');
  }
  handleCopyData(): void {}
}
