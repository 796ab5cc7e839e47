/**
 * Synthetic outputs of each load tool, in the tools' own line layouts (as the importers' tests
 * read them from the real tools): a ramp over four levels at 20k requests/s.
 */
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';

export const LEVELS = [8, 16, 32, 64];
const START = Date.UTC(2026, 10, 1, 12, 0, 0);

const TAGS = '{"expected_response":"true","group":"","method":"GET","name":"http://127.0.0.1:8080/","proto":"HTTP/1.1","scenario":"ramp","status":"200","url":"http://127.0.0.1:8080/"}';
const SHORT_TAGS = '{"group":"","scenario":"ramp"}';
const OTHER_HTTP = ['http_req_blocked', 'http_req_connecting', 'http_req_tls_handshaking', 'http_req_sending', 'http_req_waiting', 'http_req_receiving', 'http_req_failed'];
const OTHER_ITERATION = ['data_sent', 'data_received', 'iteration_duration', 'iterations'];
const point = (metric: string, time: string, value: number, tags: string) => `{"metric":"${metric}","type":"Point","data":{"time":"${time}","value":${value},"tags":${tags}}}\n`;

export type BenchFormat = 'k6 full' | 'k6 lean' | 'vegeta json' | 'vegeta csv' | 'jmeter csv' | 'gatling';

/** One request's lines, and the level's lines when the load changes (or once a second for k6's vus). */
function writer(format: BenchFormat) {
  let nextVus = START;
  let users = 0;
  return (i: number, level: number, t: number): string => {
    const latency = 1 + ((i * 7919) % 5000) / 100;
    const iso = `${new Date(Math.floor(t)).toISOString().slice(0, 23)}${String(i % 1000).padStart(6, '0')}Z`;
    let s = '';
    switch (format) {
      case 'k6 full':
      case 'k6 lean':
        while (nextVus <= t) {
          s += point('vus', new Date(nextVus).toISOString(), level, '{}');
          nextVus += 1000;
        }
        if (format === 'k6 full') s += point('http_reqs', iso, 1, TAGS);
        s += point('http_req_duration', iso, latency, TAGS);
        if (format === 'k6 full') {
          for (const m of OTHER_HTTP) s += point(m, iso, latency / 7, TAGS);
          for (const m of OTHER_ITERATION) s += point(m, iso, 100, SHORT_TAGS);
        }
        return s;
      case 'vegeta json':
        return `{"attack":"","seq":${i},"code":200,"timestamp":"${iso}","latency":${Math.round(latency * 1e6)},"bytes_out":0,"bytes_in":12,"error":"","body":"aGVsbG8=","method":"GET","url":"http://127.0.0.1:8080/","headers":{"Content-Type":["text/plain"]}}\n`;
      case 'vegeta csv':
        return `${Math.floor(t)}${String(i % 1e6).padStart(6, '0')},200,${Math.round(latency * 1e6)},0,12,"",aGVsbG8=,,${i},GET,http://127.0.0.1:8080/,Q29udGVudC1UeXBlOiB0ZXh0L3BsYWlu\n`;
      case 'jmeter csv':
        return `${i === 0 ? 'timeStamp,elapsed,label,responseCode,responseMessage,threadName,dataType,success,failureMessage,bytes,sentBytes,grpThreads,allThreads,URL,Latency,IdleTime,Connect\n' : ''}${Math.floor(t - latency)},${Math.round(latency)},GET /,200,OK,Ramp 1-${level},text,true,,120,115,${level},${level},http://127.0.0.1:8080/,${Math.round(latency)},0,0\n`;
      case 'gatling':
        while (users < level) {
          s += `USER\tramp\t${++users}\tSTART\t${Math.floor(t)}\t${Math.floor(t)}\n`;
        }
        return `${s}REQUEST\t${(i % level) + 1}\t\tget /\t${Math.floor(t - latency)}\t${Math.floor(t)}\tOK\t \n`;
    }
  };
}

/** Writes `requests` requests of `format` to `path`. */
export async function generate(path: string, format: BenchFormat, requests: number): Promise<void> {
  const out = createWriteStream(path, { highWaterMark: 1 << 20 });
  const perLevel = requests / LEVELS.length;
  const line = writer(format);
  let buf = '';
  for (let i = 0; i < requests; i++) {
    const level = LEVELS[Math.min(LEVELS.length - 1, Math.floor(i / perLevel))]!;
    buf += line(i, level, START + i / 20);
    if (buf.length > 1 << 20) {
      if (!out.write(buf)) await once(out, 'drain');
      buf = '';
    }
  }
  out.end(buf);
  await once(out, 'finish');
}
