// tp-check.mjs: load a trace into Perfetto's trace processor (the engine of
// ui.perfetto.dev, its WebAssembly build) under node and tell what it made
// of it.  Run through tp-check, which finds node and the engine; see there
// for the options and the exit statuses.
//
// The engine is built for a browser worker: a glue script (engine_bundle)
// that instantiates trace_processor.wasm and answers on a MessagePort, and
// engine.mjs, the UI's side of that RPC.  Under node the glue needs a
// worker-like global scope, the wasm bytes handed in (it would fetch them),
// and a signal when the module is ready to take requests: three small
// edits of its text, each checked, so that a different build is refused
// rather than half driven.
import fs from 'node:fs';
import path from 'node:path';
import vm from 'node:vm';
import { pathToFileURL } from 'node:url';

const EXIT_OK = 0, EXIT_LOSS = 1, EXIT_USAGE = 2, EXIT_UNUSABLE = 3, EXIT_ENGINE = 4;
const me = 'tp-check';
const out = (s) => process.stdout.write(s + '\n');
const err = (s) => process.stderr.write(`${me}: ${s}\n`);

function usage(code) {
	(code ? process.stderr : process.stdout).write(
		'usage: tp-check [--slices N] [--flows N] [--counters N] [--sql QUERY]... [-v] TRACE\n' +
		'Import TRACE into Perfetto\'s trace processor; print the slices, flows and counters it\n' +
		'kept and every statistic above 0 that is not informational.  Exit 1 when an error or\n' +
		'data-loss statistic is above 0 or a count differs from the one given.\n');
	process.exit(code);
}

const want = {};
const sql = [];
let verbose = false, trace = null;
{
	const a = process.argv.slice(2);
	for (let i = 0; i < a.length; i++) {
		const o = a[i];
		if (o === '-h' || o === '--help') usage(EXIT_OK);
		else if (o === '-v') verbose = true;
		else if (o === '--slices' || o === '--flows' || o === '--counters') {
			const v = a[++i];
			if (v === undefined || !/^[0-9]+$/.test(v)) { err(`${o}: a count, not '${v ?? ''}'`); usage(EXIT_USAGE); }
			want[o.slice(2)] = Number(v);
		} else if (o === '--sql') {
			if (a[i + 1] === undefined) { err('--sql: a query'); usage(EXIT_USAGE); }
			sql.push(a[++i]);
		} else if (o.startsWith('-') && o !== '-') { err(`unknown option ${o}`); usage(EXIT_USAGE); }
		else if (trace === null) trace = o;
		else { err('one trace at a time'); usage(EXIT_USAGE); }
	}
	if (trace === null) usage(EXIT_USAGE);
}

const dir = process.env.TP_ASSETS;
if (!dir || !fs.existsSync(path.join(dir, 'trace_processor.wasm'))) {
	err(`no trace processor in '${dir ?? ''}' (make check installs it into build/npm)`);
	process.exit(EXIT_ENGINE);
}
let bytes;
try {
	bytes = fs.readFileSync(trace);
} catch (e) {
	err(`${trace}: cannot read: ${e.message}`);
	process.exit(EXIT_UNUSABLE);
}

// What the engine prints (its log lines, wasm warnings) is kept, and shown
// with -v or when something goes wrong.
const engineLog = [];
const keep = (...a) => { engineLog.push(a.map(String).join(' ')); };
console.log = keep;
console.warn = keep;
console.error = keep;
console.info = keep;
console.debug = keep;
const showLog = () => {
	const n = engineLog.length, from = Math.max(0, n - 40);
	if (from) process.stderr.write(`  engine: (${from} earlier lines not shown)\n`);
	for (const l of engineLog.slice(from)) process.stderr.write(`  engine: ${l}\n`);
};

let ready;
const readyP = new Promise((r) => { ready = r; });
try {
	const { EngineBase } = await import(pathToFileURL(path.join(dir, 'engine.mjs')).href);
	Object.defineProperty(globalThis, 'self', { value: globalThis, writable: true, configurable: true });
	globalThis.WorkerGlobalScope = function WorkerGlobalScope() {};
	Object.defineProperty(globalThis, 'location',
		{ value: { href: pathToFileURL(dir).href + '/' }, writable: true, configurable: true });
	globalThis.__tpcWasm = new Uint8Array(fs.readFileSync(path.join(dir, 'trace_processor.wasm')));
	globalThis.__tpcReady = ready;
	let glue = fs.readFileSync(path.join(dir, 'engine_bundle.node.js'), 'utf8');
	const edits = [
		// the 32-bit build: the one shipped
		['this.useMemory64 = hasMemory64Support();', 'this.useMemory64 = false;'],
		// the wasm bytes given, not fetched
		['locateFile: (s) => s,', 'locateFile: (s) => s, wasmBinary: globalThis.__tpcWasm,'],
		// ready once the RPC buffer is set up (the bridge's own .then on the
		// same promise was registered first, in its constructor, so runs first)
		['onRuntimeInitialized: () => deferredRuntimeInitialized.resolve(),',
		 'onRuntimeInitialized: () => { deferredRuntimeInitialized.resolve(); deferredRuntimeInitialized.then(() => globalThis.__tpcReady()); },'],
	];
	for (const [from, to] of edits) {
		if (glue.split(from).length !== 2) throw new Error(`unsupported engine_bundle.node.js: no single '${from}'`);
		glue = glue.replace(from, to);
	}
	vm.runInThisContext(glue, { filename: 'engine_bundle.node.js' });
	if (typeof globalThis.onmessage !== 'function') throw new Error('engine_bundle.node.js set no worker message handler');

	class NodeEngine extends EngineBase {
		mode = 'WASM';
		id = 'tp-check';
		constructor(port) {
			super();
			this.port = port;
			port.onmessage = (m) => { if (m.data instanceof Uint8Array) this.onRpcResponseBytes(m.data); };
		}
		rpcSendRequestBytes(data) { this.port.postMessage(data); }
	}
	const ch = new MessageChannel();
	await readyP;
	globalThis.onmessage({ data: ch.port1 });      // the worker's bootstrap message
	var engine = new NodeEngine(ch.port2);
} catch (e) {
	showLog();
	err(`the trace processor did not start: ${e.message ?? e}`);
	process.exit(EXIT_ENGINE);
}

try {
	const CHUNK = 32 << 20;
	for (let o = 0; o < bytes.length; o += CHUNK) await engine.parse(bytes.subarray(o, o + CHUNK));
	await engine.notifyEof();
} catch (e) {
	showLog();
	err(`${trace}: not imported: ${e.message ?? e}`);
	process.exit(EXIT_UNUSABLE);
}

async function rows(q) {
	const r = await engine.query(q);
	const cols = r.columns(), res = [];
	for (const it = r.iter({}); it.valid(); it.next()) {
		const row = {};
		for (const c of cols) {
			const v = it.get(c);
			row[c] = typeof v === 'bigint' ? Number(v) : v;
		}
		res.push(row);
	}
	return { cols, res };
}

let status = EXIT_OK;
try {
	const { res: [c] } = await rows(
		'select (select count(*) from slice) as slices, (select count(*) from flow) as flows, ' +
		'(select count(*) from counter) as counters, (select count(*) from thread_track) as thread_tracks, ' +
		'(select count(*) from process) as processes, (select count(*) from slice where dur < 0) as unfinished, ' +
		'(select ifnull(max(depth), 0) from slice) as max_depth');
	out(`${trace}: slices ${c.slices}, flows ${c.flows}, counters ${c.counters}, thread tracks ${c.thread_tracks}, ` +
		`processes ${c.processes}, unfinished slices ${c.unfinished}, max depth ${c.max_depth}`);
	const { res: stats } = await rows(
		"select name, idx, severity, source, value from stats where value > 0 and severity != 'info' order by name, idx");
	for (const s of stats) {
		out(`stat ${s.name}${s.idx !== null && s.idx !== undefined ? `[${s.idx}]` : ''} (${s.severity}, ${s.source}): ${s.value}`);
		if (s.severity === 'error' || s.severity === 'data_loss') status = EXIT_LOSS;
	}
	if (c.unfinished > 0) status = EXIT_LOSS;   // a B without its E: drawn to the end of the trace
	for (const k of Object.keys(want)) {
		if (c[k] !== want[k]) {
			out(`${k}: ${c[k]}, expected ${want[k]}`);
			status = EXIT_LOSS;
		}
	}
	for (const q of sql) {
		const { cols, res } = await rows(q);
		out(`## ${q}`);
		for (const r of res) out(cols.map((k) => `${k}=${r[k]}`).join(' '));
	}
} catch (e) {
	showLog();
	err(`${trace}: query failed: ${e.message ?? e}`);
	process.exit(EXIT_ENGINE);
}
if (verbose || status) showLog();
process.exit(status);
