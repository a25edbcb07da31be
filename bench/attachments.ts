// Uploads (contract §30), through a production-configured server:
// 1. One upload of ATTACHMENTS_MIB (default 25) MiB: the server's RSS growth (target ≤ 8 MB: the body is streamed,
//    never held) and its throughput against copying the same file with `cp` on the same disk, in the same run
//    (target ≥ 0.5×).
// 2. ATTACHMENTS_CONCURRENT (default 20) uploads at once from one account while another account GETs a client:
//    the other tenant's GET p99 during the uploads against before them (target ≤ 2×): ATTACHMENTS_GETS GETs one
//    after another alone, then GETs one after another from 100 ms after the uploads begin until the last ends
//    (until 30 November, 200 from that moment: the uploads' first fraction of a second; printed as
//    `first200Ratio`). The uploads are sent by a child process, so that the GETs are timed by an event loop that
//    sends nothing else.
// `npm run bench:attachments`; ATTACHMENTS_MIB (a fraction for a quick run: 0.5), ATTACHMENTS_CONCURRENT,
// ATTACHMENTS_GETS (1000), ATTACHMENTS_ROUNDS (5), ATTACHMENTS_SENDER_NICE (0: the concurrent uploads' senders at the
// server's priority; 19: they take only the CPU the server and the GETs leave, as senders on other machines),
// SCALE_ENGINE. At 25 MiB the file is exactly ATTACHMENT_MAX_BYTES, the largest allowed; the server's
// REQUEST_TIMEOUT_MS is raised to 10 minutes, as an operator taking large files over slow links would, so that 20
// uploads of 25 MiB on one busy machine are measured rather than cut off at 30 s.
//
// What is compared (bench/README.md, "Uploads: like with like"):
// - The first upload (`upload`, kept as it was measured before) is the route's first request after start: it
//   includes what a server does once (the answer's serializer compiled, first uses) and is sent by a Node client
//   (`http.request` fed by `fs.createReadStream`) that on this 2-core machine used more CPU (≈ 150–280 ms per
//   25 MiB) than the server did (≈ 130–200 ms), beside it. Its `cp` is followed by `sync` of the whole machine,
//   which writes whatever else is dirty (other sessions' files) too.
// - `warm`: ATTACHMENTS_ROUNDS more uploads, each of other bytes (so that each is stored and fsynced, none a
//   duplicate), to the route already answered once, each beside `cp` of its file followed by `sync FILE FOLDER`
//   (an fsync of the copy and of its folder: what the upload does before its 201, nothing else). Each round's
//   upload is sent by the Node client and then by curl (when installed: ≈ 50 ms of CPU per 25 MiB), and the
//   ratios are the medians of the rounds, against the fsynced `cp` (the fair peer) and against `cp` alone (the
//   stricter reading). curl's time is its own `time_total` (connect to the answer's end), not the wall time around
//   its process: curl takes 20–40 ms to start on this machine (its TLS and protocol libraries loaded), `cp` about
//   one; the wall-time ratio is printed too (`curlWallThroughputVsCpFsynced`).
// - The concurrent uploads are sent by the Node client (as before) and then by curl: the uploads' own sender runs
//   on the same two cores as the server and the GETs, and a production server's uploaders do not.
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { api, prepare, procMemoryMb, startBms, stop, onEachEngine, work } from './lib.js';

const MIB = Number(process.env.ATTACHMENTS_MIB ?? 25);
const CONCURRENT = Number(process.env.ATTACHMENTS_CONCURRENT ?? 20);
const GETS = Number(process.env.ATTACHMENTS_GETS ?? 1000);
const ROUNDS = Number(process.env.ATTACHMENTS_ROUNDS ?? 5);
/** The concurrent uploads' senders' niceness (0: the server's own priority). */
const SENDER_NICE = Number(process.env.ATTACHMENTS_SENDER_NICE ?? 0);
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
/** curl, when installed: the leaner sender. */
const CURL = spawnSync('curl', ['--version']).status === 0;
const round = (value: number, places = 2) => Math.round(value * 10 ** places) / 10 ** places;
const p99 = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length * 0.99)] ?? 0;

/**
 * CPU time (ms) the server has used: the whole process and its main thread (the event loop; the intake's thread
 * and libuv's pool are the rest), from /proc in clock ticks of 10 ms.
 */
function serverCpuMs(pid: number): { process: number; loop: number } {
  const ticks = (stat: string) => {
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * 10;
  };
  return {
    process: ticks(fs.readFileSync(`/proc/${pid}/stat`, 'utf8')),
    loop: ticks(fs.readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8')),
  };
}

/** A file of `mib` MiB of CSV-like text (declared text/csv, checked as UTF-8 on the way in). */
function bigFile(mib: number): string {
  const file = path.join(work, `upload-${mib}.csv`);
  const total = Math.round(mib * 1024 * 1024);
  const header = Buffer.from('reading,value\n', 'utf8');
  const handle = fs.openSync(file, 'w');
  fs.writeSync(handle, header);
  const chunk = Buffer.alloc(1024 * 1024);
  let seed = 1;
  for (let index = 0; index < chunk.length; index++) {
    seed = (seed * 1103515245 + 12345) & 0x7fffffff;
    chunk[index] = index % 64 === 63 ? 0x0a : 0x30 + (seed % 10);
  }
  for (let written = header.length; written < total; written += chunk.length)
    fs.writeSync(handle, chunk, 0, Math.min(chunk.length, total - written));
  fs.closeSync(handle);
  return file;
}

/** Streams a file to POST /v1/attachments as a raw upload; resolves with the status. */
function upload(base: string, key: string, parentId: string, file: string): Promise<number> {
  const url = new URL(`/v1/attachments?parent_type=client&parent_id=${parentId}&filename=big.csv`, base);
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: `${url.pathname}${url.search}`,
        method: 'POST',
        headers: {
          authorization: `Bearer ${key}`,
          'content-type': 'text/csv',
          'content-length': fs.statSync(file).size,
        },
      },
      (response) => {
        response.resume();
        response.on('end', () => resolve(response.statusCode ?? 0));
      },
    );
    request.on('error', reject);
    fs.createReadStream(file).pipe(request);
  });
}

/**
 * The same upload sent by curl (streamed from the file, `-T`), in a process of its own; resolves with the status
 * and curl's own `time_total` in seconds (from its connect's start to the answer's end: without the 20–40 ms
 * curl's process takes to start, which is not the server's).
 */
function curlTimedUpload(
  base: string,
  key: string,
  parentId: string,
  file: string,
): Promise<{ status: number; seconds: number }> {
  const url = `${base}/v1/attachments?parent_type=client&parent_id=${parentId}&filename=big.csv`;
  const child = spawn(
    'curl',
    [
      '-s',
      '-o',
      '/dev/null',
      '-w',
      '%{http_code} %{time_total}',
      '-X',
      'POST',
      '-H',
      `authorization: Bearer ${key}`,
      '-H',
      'content-type: text/csv',
      '-H',
      'expect:',
      '-T',
      file,
      url,
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let answered = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    answered += chunk;
  });
  return once(child, 'close').then(() => {
    const [status, seconds] = answered.split(' ').map(Number);
    return { status: status ?? 0, seconds: seconds ?? Number.NaN };
  });
}

const curlUpload = (base: string, key: string, parentId: string, file: string) =>
  curlTimedUpload(base, key, parentId, file).then((answer) => answer.status);

/** The file's first bytes made `round`'s own (the rest unchanged): another key, so stored and fsynced anew. */
function markFile(file: string, round: number): void {
  const handle = fs.openSync(file, 'r+');
  fs.writeSync(handle, Buffer.from(`r${String(round).padStart(6, '0')},`, 'utf8'), 0, 8, 0);
  fs.closeSync(handle);
}

const seconds = async (task: () => Promise<unknown> | unknown) => {
  const started = performance.now();
  await task();
  return (performance.now() - started) / 1000;
};

async function runEngine(engine: string, env: Record<string, string>) {
  const directory = fs.mkdtempSync(path.join(work, 'attachments-'));
  const serverEnv = { ...env, ATTACHMENTS_DIR: directory, REQUEST_TIMEOUT_MS: '600000' };
  const seeded = await prepare(serverEnv);
  const other = await prepare(serverEnv);
  const server = await startBms(serverEnv);
  const parent = await api(server.url, seeded.key, 'POST', '/v1/clients', { name: 'Upload client' });
  const otherClient = await api(server.url, other.key, 'POST', '/v1/clients', { name: 'Other tenant' });
  const file = bigFile(MIB);

  // 1. One upload against cp, and the server's RSS around it.
  const copyStarted = performance.now();
  // Beside the store, on the same disk (not in it: the store holds only its own files).
  const copy = `${directory}-copy.bin`;
  spawnSync('cp', [file, copy]);
  spawnSync('sync');
  const copySeconds = (performance.now() - copyStarted) / 1000;
  const pid = server.process.pid as number;
  const rssBefore = procMemoryMb(pid, 'VmRSS');
  let rssPeak = rssBefore;
  const sampler = setInterval(() => {
    rssPeak = Math.max(rssPeak, procMemoryMb(pid, 'VmRSS'));
  }, 10);
  const cpuBefore = serverCpuMs(pid);
  const started = performance.now();
  const status = await upload(server.url, seeded.key, parent.json.data.id, file);
  const uploadSeconds = (performance.now() - started) / 1000;
  clearInterval(sampler);
  const cpuAfter = serverCpuMs(pid);
  const rssGrowth = Math.max(rssPeak, procMemoryMb(pid, 'VmRSS')) - rssBefore;
  if (status !== 201) throw new Error(`the upload answered ${status}`);

  // 1b. Warm uploads, each of its own bytes, against `cp` with the fsyncs the upload makes (and against `cp` alone).
  const warm: Array<{
    cp: number;
    cpSynced: number;
    node: number;
    curl: number | undefined;
    curlOwn: number | undefined;
    cpu: number;
  }> = [];
  for (let round = 1; round <= ROUNDS; round++) {
    markFile(file, round);
    fs.rmSync(copy, { force: true });
    const cp = await seconds(() => spawnSync('cp', [file, copy]));
    const cpSynced = cp + (await seconds(() => spawnSync('sync', [copy, path.dirname(copy)])));
    const cpuStarted = serverCpuMs(pid).process;
    let answered = 0;
    const node = await seconds(async () => {
      answered = await upload(server.url, seeded.key, parent.json.data.id, file);
    });
    const cpu = serverCpuMs(pid).process - cpuStarted;
    if (answered !== 201) throw new Error(`a warm upload answered ${answered}`);
    let curl: number | undefined;
    let curlOwn: number | undefined;
    if (CURL) {
      markFile(file, ROUNDS + round);
      curl = await seconds(async () => {
        const timed = await curlTimedUpload(server.url, seeded.key, parent.json.data.id, file);
        answered = timed.status;
        curlOwn = timed.seconds;
      });
      if (answered !== 201) throw new Error(`curl's upload answered ${answered}`);
    }
    warm.push({ cp, cpSynced, node, curl, curlOwn, cpu });
  }
  markFile(file, 0);
  const of = (key: 'cp' | 'cpSynced' | 'node' | 'curl' | 'curlOwn' | 'cpu') =>
    median(warm.map((round) => round[key] ?? 0));
  const sender = CURL ? of('curlOwn') : of('node');

  // 2. Another tenant's GET p99, alone and during CONCURRENT uploads.
  // GETS of them, or (`until`) as many as fit until it settles.
  const gets = async (until?: Promise<unknown>) => {
    let settled = false;
    void until?.finally(() => {
      settled = true;
    });
    const times: number[] = [];
    for (let index = 0; until ? !settled : index < GETS; index++) {
      const begun = performance.now();
      await api(server.url, other.key, 'GET', `/v1/clients/${otherClient.json.data.id}`);
      times.push(performance.now() - begun);
    }
    return times;
  };
  // The uploads are sent by a process of their own: sent from this one, their 20 streams would share the event
  // loop that times the GETs, and each GET's answer would wait behind this process's own writes.
  const concurrently = async (sender: 'node' | 'curl') => {
    const alone = await gets();
    const cpuStarted = serverCpuMs(pid);
    const uploader = spawn(
      'nice',
      [
        '-n',
        String(SENDER_NICE),
        process.execPath,
        ...process.execArgv,
        fileURLToPath(import.meta.url),
        'uploads',
        sender,
        server.url,
        seeded.key,
        parent.json.data.id,
        file,
      ],
      { stdio: ['ignore', 'pipe', 'inherit'] },
    );
    let answered = '';
    uploader.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      answered += chunk;
    });
    const uploads = once(uploader, 'close').then(() => JSON.parse(answered.split('\n')[1] as string) as number[]);
    // The GETs begin when the uploads are under way: the uploader says when it has begun them.
    while (!answered.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 100));
    const during = await gets(uploads);
    const statuses = await uploads;
    const cpuEnded = serverCpuMs(pid);
    if (statuses.some((status) => status !== 201)) throw new Error(`the uploads answered ${statuses.join(', ')}`);
    return {
      // The concurrent uploads' server CPU per upload (the other tenant's GETs included, a small part).
      cpuMsPerUpload: {
        server: round((cpuEnded.process - cpuStarted.process) / CONCURRENT, 1),
        eventLoop: round((cpuEnded.loop - cpuStarted.loop) / CONCURRENT, 1),
      },
      // Every GET while the uploads ran, against GETS alone before them; then (the older reading) the first 200 of
      // each only, the GETs of the uploads' first fraction of a second.
      otherTenantGetP99: {
        aloneMs: round(p99(alone)),
        duringUploadsMs: round(p99(during)),
        ratio: round(p99(during) / p99(alone)),
        getsAlone: alone.length,
        getsDuring: during.length,
        first200Ratio: round(p99(during.slice(0, 200)) / p99(alone.slice(0, 200))),
      },
    };
  };
  const byNode = await concurrently('node');
  const byCurl = CURL ? await concurrently('curl') : undefined;
  await stop(server.process);
  const result = {
    engine,
    mib: MIB,
    upload: {
      seconds: round(uploadSeconds),
      cpSeconds: round(copySeconds),
      throughputVsCp: round(copySeconds / uploadSeconds),
      rssGrowthMb: round(rssGrowth, 1),
      serverCpuMs: cpuAfter.process - cpuBefore.process,
      eventLoopCpuMs: cpuAfter.loop - cpuBefore.loop,
    },
    // Medians of ROUNDS warm uploads (the route answered once already), each of its own bytes.
    warm: {
      rounds: ROUNDS,
      cpSeconds: round(of('cp'), 3),
      cpFsyncedSeconds: round(of('cpSynced'), 3),
      nodeSeconds: round(of('node'), 3),
      // Wall time around curl's process, and curl's own time_total (its start left out).
      curlSeconds: CURL ? round(of('curl'), 3) : undefined,
      curlOwnSeconds: CURL ? round(of('curlOwn'), 3) : undefined,
      serverCpuMs: of('cpu'),
      // The target's reading: the upload (curl's own time when installed) against the fsynced `cp`; then against
      // `cp` alone; then curl's wall time, its process's start included, against the fsynced `cp` (the older reading).
      throughputVsCpFsynced: round(of('cpSynced') / sender),
      throughputVsCpAlone: round(of('cp') / sender),
      curlWallThroughputVsCpFsynced: CURL ? round(of('cpSynced') / of('curl')) : undefined,
      nodeThroughputVsCpFsynced: round(of('cpSynced') / of('node')),
    },
    concurrent: CONCURRENT,
    // Sent by the Node client (as before: its figures are the old ones) and by curl.
    concurrentCpuMsPerUpload: byNode.cpuMsPerUpload,
    otherTenantGetP99: byNode.otherTenantGetP99,
    byCurl,
  };
  console.log(JSON.stringify(result));
  for (const made of [directory, copy, file]) fs.rmSync(made, { recursive: true, force: true });
  return result;
}

/** The uploader's process: CONCURRENT uploads at once, sent by `sender`, their statuses printed as JSON. */
async function uploadMany([sender, base, key, parentId, file]: string[]) {
  const send = sender === 'curl' ? curlUpload : upload;
  const uploads = Promise.all(
    Array.from({ length: CONCURRENT }, () => send(base as string, key as string, parentId as string, file as string)),
  );
  process.stdout.write('begun\n');
  process.stdout.write(JSON.stringify(await uploads));
}

async function main() {
  console.log(
    JSON.stringify({ cpu: os.cpus()[0]?.model ?? 'unknown', cores: os.cpus().length, node: process.version }),
  );
  await onEachEngine('attachments', runEngine);
  process.exit(0);
}

if (process.argv[2] === 'uploads') await uploadMany(process.argv.slice(3));
else await main();
