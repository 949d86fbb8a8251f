#!/usr/bin/env node
// fs-bench.js: a small file-I/O workload for docs/guide-nodejs.md.
//
// It only uses Node's public fs API; whether libuv sends the work to io_uring or to
// its thread pool is decided by libuv (UV_USE_IO_URING). Run it under uringscope to see
// which.
//
//   node fs-bench.js prepare  DIR [files] [kib]   create DIR/f00000 ... (default 2000 x 16 KiB)
//                                                 and DIR/big (default 256 MiB)
//   node fs-bench.js readfile DIR [rounds] [conc] fs.promises.readFile() of every small
//                                                 file, `rounds` times, `conc` at a time
//   node fs-bench.js randread DIR [reads]  [conc] 4 KiB FileHandle.read() at random
//                                                 offsets of DIR/big, `conc` in flight
//   node fs-bench.js write    DIR [files]  [conc] fs.promises.writeFile() of 16 KiB files
//                                                 into DIR/out/ (then deleted)
//   node fs-bench.js idle     SECONDS            keep the event loop alive, doing nothing
//
// Each mode prints one line: mode, requests, wall time and rate, libuv version and
// the UV_USE_IO_URING setting it ran with. With FS_BENCH_RINGS=1 a second line gives,
// for each io_uring ring the process holds, the SQEs libuv wrote to it (the SQ tail in
// /proc/self/fdinfo): the kernel's own count of what went to io_uring. libuv sends a
// request to its thread pool instead when its 64-entry ring looks full (its check counts
// SQEs the SQPOLL thread has taken but not yet released), which 32 or more requests in
// flight can cause on a busy machine.

'use strict';
const fs = require('fs');
const fsp = fs.promises;
const path = require('path');

const [mode, arg1, arg2, arg3] = process.argv.slice(2);
const int = (v, d) => (v === undefined ? d : parseInt(v, 10));

function report(what, n, t0) {
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  console.log(`${what}: ${n} requests in ${ms.toFixed(1)} ms` +
              ` (${Math.round(n / (ms / 1000))}/s)` +
              ` uv=${process.versions.uv} UV_USE_IO_URING=${process.env.UV_USE_IO_URING ?? '(unset)'}`);
}

// Run `total` async jobs, at most `conc` at a time.
async function pool(total, conc, job) {
  let next = 0;
  async function worker() {
    while (next < total) await job(next++);
  }
  await Promise.all(Array.from({ length: Math.min(conc, total) }, worker));
}

async function prepare(dir, files, kib) {
  fs.mkdirSync(dir, { recursive: true });
  const buf = Buffer.alloc(kib * 1024, 'x');
  for (let i = 0; i < files; i++)
    fs.writeFileSync(path.join(dir, 'f' + String(i).padStart(5, '0')), buf);
  const big = path.join(dir, 'big');
  const fd = fs.openSync(big, 'w');
  const chunk = Buffer.alloc(1 << 20, 'y');
  for (let i = 0; i < 256; i++) fs.writeSync(fd, chunk);
  fs.closeSync(fd);
  console.log(`prepared ${files} x ${kib} KiB files and a 256 MiB file in ${dir}`);
}

async function readfile(dir, rounds, conc) {
  const names = fs.readdirSync(dir).filter((n) => n.startsWith('f')).map((n) => path.join(dir, n));
  const t0 = process.hrtime.bigint();
  let bytes = 0;
  await pool(names.length * rounds, conc, async (i) => {
    const data = await fsp.readFile(names[i % names.length]);
    bytes += data.length;
  });
  report(`readfile ${names.length} files x ${rounds} rounds, ${bytes >> 20} MiB, conc ${conc}`,
         names.length * rounds, t0);
}

async function randread(dir, reads, conc) {
  const fh = await fsp.open(path.join(dir, 'big'), 'r');
  const blocks = (await fh.stat()).size / 4096;
  const bufs = Array.from({ length: conc }, () => Buffer.alloc(4096));
  let slot = 0;
  const t0 = process.hrtime.bigint();
  await pool(reads, conc, async () => {
    const buf = bufs[slot++ % conc];
    await fh.read(buf, 0, 4096, Math.floor(Math.random() * blocks) * 4096);
  });
  report(`randread 4 KiB, conc ${conc}`, reads, t0);
  await fh.close();
}

async function write(dir, files, conc) {
  const out = path.join(dir, 'out');
  fs.mkdirSync(out, { recursive: true });
  const buf = Buffer.alloc(16 * 1024, 'z');
  const t0 = process.hrtime.bigint();
  await pool(files, conc, (i) => fsp.writeFile(path.join(out, 'w' + i), buf));
  report(`write ${files} x 16 KiB files, conc ${conc}`, files, t0);
  fs.rmSync(out, { recursive: true, force: true });
}

// "fd=19 sq_tail=20002 ..." for every io_uring fd of this process.
function ringTails() {
  const tails = [];
  for (const fd of fs.readdirSync('/proc/self/fd')) {
    let target;
    try { target = fs.readlinkSync(`/proc/self/fd/${fd}`); } catch { continue; }
    if (target !== 'anon_inode:[io_uring]') continue;
    const m = /^SqTail:\s*(\d+)/m.exec(fs.readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
    if (m) tails.push(`fd=${fd} sq_tail=${m[1]}`);
  }
  return tails.join(' ');
}

async function main() {
  switch (mode) {
    case 'prepare': return prepare(arg1, int(arg2, 2000), int(arg3, 16));
    case 'readfile': return readfile(arg1, int(arg2, 5), int(arg3, 64));
    case 'randread': return randread(arg1, int(arg2, 200000), int(arg3, 32));
    case 'write': return write(arg1, int(arg2, 2000), int(arg3, 64));
    case 'idle': return new Promise((r) => setTimeout(r, int(arg1, 10) * 1000));
    default:
      console.error('usage: fs-bench.js prepare|readfile|randread|write|idle DIR|SECONDS [...]');
      process.exit(2);
  }
}

main()
  .then(() => { if (process.env.FS_BENCH_RINGS === '1') console.log(`rings: ${ringTails()}`); })
  .catch((e) => { console.error(e); process.exit(1); });
