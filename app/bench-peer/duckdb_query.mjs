// Runs one workload of the peer benchmark in DuckDB (its npm package, pinned in package.json):
//   node duckdb_query.mjs WORKLOAD INPUT.jsonl OUTPUT.csv THREADS
// WORKLOAD: tumbling | sliding (the SQL below). Prints one JSON line with the wall seconds of the
// query (read_json + GROUP BY + COPY to the output file; the process start is not counted).
// The result rows are user_id,window_start,n,total, as Tideline's window writes them.
import { DuckDBInstance } from '@duckdb/node-api';

const [workload, input, output, threads] = process.argv.slice(2);
if (!workload || !input || !output || !threads) {
    console.error('usage: node duckdb_query.mjs tumbling|sliding INPUT.jsonl OUTPUT.csv THREADS');
    process.exit(2);
}
const quote = (s) => `'${s.replaceAll("'", "''")}'`;
const source = `read_json(${quote(input)}, format = 'newline_delimited',
    columns = {event_id: 'VARCHAR', user_id: 'VARCHAR', value: 'BIGINT', event_time: 'BIGINT', partition: 'BIGINT'})`;
// Tumbling 1 s: window_start = event_time rounded down to the second.
// Sliding 5 s every 1 s: an event belongs to the 5 windows starting at its second and the 4 before.
const queries = {
    tumbling: `SELECT user_id, event_time - (event_time % 1000) AS window_start,
                      count(*) AS n, sum(value) AS total
               FROM ${source} GROUP BY ALL`,
    sliding: `SELECT user_id, window_start, count(*) AS n, sum(value) AS total
              FROM (SELECT user_id, value,
                           unnest(range(event_time - (event_time % 1000) - 4000,
                                        event_time - (event_time % 1000) + 1, 1000)) AS window_start
                    FROM ${source})
              GROUP BY ALL`,
};
if (!(workload in queries)) {
    console.error(`unknown workload ${workload}`);
    process.exit(2);
}
const instance = await DuckDBInstance.create(':memory:', { threads: String(threads) });
const connection = await instance.connect();
const started = process.hrtime.bigint();
await connection.run(`COPY (${queries[workload]}) TO ${quote(output)} (HEADER, DELIMITER ',')`);
const wall = Number(process.hrtime.bigint() - started) / 1e9;
console.log(JSON.stringify({ engine: 'duckdb', workload, threads: Number(threads), wall_s: wall }));
