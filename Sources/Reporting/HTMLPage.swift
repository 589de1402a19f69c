/// The HTML report's page: markup, style and script, all inside the one file. Generated from
/// readable sources once; edit here. The script and the style are allowed by the
/// Content-Security-Policy through their SHA-256 sums, computed from these very strings.
enum HTMLPage {
    static let style = #"""
        body { font: 13px/1.4 system-ui, -apple-system, "Segoe UI", sans-serif; margin: 0; color: #1b1f24; background: #fff; }
        header { padding: 10px 16px 6px; border-bottom: 1px solid #dde; }
        h1 { font-size: 18px; margin: 0 0 2px; }
        h2 { font-size: 14px; margin: 14px 0 4px; }
        #ds-files, #ds-counts { margin: 2px 0; color: #444; }
        #ds-controls { padding: 6px 16px; display: flex; flex-wrap: wrap; gap: 10px; align-items: center; background: #f6f7f9; }
        #ds-controls select { width: 260px; }
        #ds-legend { padding: 2px 16px; color: #444; font-size: 12px; }
        #ds-legend span { margin-right: 12px; white-space: nowrap; display: inline-block; }
        .k-ssdp { color: #1f5f99; } .k-mdns { color: #1d7a4c; } .k-cl { color: #6b4fa0; }
        .s-error { color: #d42a2a; } .s-warning { color: #d88a00; } .s-info { color: #2a7ab8; }
        #ds-timeline { padding: 4px 16px; }
        #ds-canvas { display: block; border: 1px solid #dde; cursor: crosshair; }
        #ds-viewinfo { color: #555; font-size: 12px; padding: 2px 16px; }
        #ds-main { display: grid; grid-template-columns: minmax(420px, 1fr) minmax(420px, 1fr); gap: 16px; padding: 0 16px 24px; }
        #ds-detail pre { background: #f6f7f9; padding: 6px; overflow-x: auto; white-space: pre; font: 12px/1.35 ui-monospace, Menlo, Consolas, monospace; margin: 4px 0; }
        #ds-title { font-weight: 600; }
        .finding { border-left: 4px solid #999; padding: 3px 8px; margin: 6px 0; background: #fafafa; }
        .finding.sev-error { border-color: #d42a2a; } .finding.sev-warning { border-color: #d88a00; } .finding.sev-info { border-color: #2a7ab8; }
        .spec, .interop { color: #555; font-size: 12px; }
        .unanswered { color: #d42a2a; font-weight: 600; margin-right: 8px; }
        #ds-impact { margin: 4px 0; padding-left: 18px; color: #d42a2a; } #ds-impact:empty { display: none; }
        button.link { background: none; border: none; color: #1f5f99; text-decoration: underline; cursor: pointer; padding: 0 8px 0 0; font: inherit; }
        table { border-collapse: collapse; width: 100%; font-size: 12px; table-layout: fixed; }
        th, td { text-align: left; padding: 2px 6px; border-bottom: 1px solid #eee; vertical-align: top; word-break: break-word; }
        th { background: #f0f2f5; white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        td:first-child { white-space: nowrap; overflow: hidden; text-overflow: ellipsis; }
        table.wide-first th:first-child { width: 40%; }
        tr.click { cursor: pointer; } tr.click:hover { background: #eef4fb; }
        tr.sev-error td:nth-child(2) { color: #d42a2a; } tr.sev-warning td:nth-child(2) { color: #d88a00; }
        .scroll { max-height: 340px; overflow-y: auto; contain: content; }
        """#

    static let body = #"""
        <header>
        <h1>DiscoScope report</h1>
        <p id="ds-files"></p>
        <p id="ds-counts"></p>
        <ul id="ds-impact"></ul>
        </header>
        <section id="ds-controls">
        <label>Device <select id="f-lane"></select></label>
        <label id="l-seg" hidden>Segment <select id="f-seg"></select></label>
        <label>Protocol <select id="f-proto"><option value="">SSDP and mDNS</option><option value="ssdp">SSDP</option><option value="mdns">mDNS</option></select></label>
        <label>Rule <select id="f-rule"></select></label>
        <label id="l-prof" hidden>Profile <select id="f-prof"></select></label>
        <label>Severity <select id="f-sev"><option value="">any (or none)</option><option value="1">info and above</option><option value="2">warning and above</option><option value="3">error</option></select></label>
        <span>Zoom <button id="z-in" type="button">+</button> <button id="z-out" type="button">&minus;</button> <button id="z-fit" type="button">fit</button></span>
        <span class="hint">wheel: zoom · drag: pan · wheel on the names: scroll lanes · click a mark for its message</span>
        </section>
        <div id="ds-legend"><span class="k-ssdp">SSDP</span><span class="k-mdns">mDNS</span><span class="k-cl">&#8674; client lane</span><span>&#9675; M-SEARCH / query (dashed red: unanswered)</span><span>&#9679; response</span><span>&#9650; NOTIFY alive</span><span>&#9660; byebye / goodbye</span><span>&#9670; probe</span><span>&#9632; announcement</span><span>line: query &rarr; answer</span><span>dot: finding <b class="s-error">error</b> <b class="s-warning">warning</b> <b class="s-info">info</b></span><span>bar under a mark: several in one place</span></div>
        <div id="ds-timeline"><canvas id="ds-canvas"></canvas></div>
        <div id="ds-viewinfo"></div>
        <div id="ds-main">
        <section id="ds-detail">
        <h2>Message</h2>
        <div id="ds-title">Click a mark on the timeline, or a row below.</div>
        <div id="ds-pair"></div>
        <pre id="ds-text"></pre>
        <pre id="ds-hex"></pre>
        <div id="ds-findings"></div>
        </section>
        <section id="ds-tables">
        <h2>Findings by rule</h2>
        <div class="scroll"><table><thead><tr><th>rule</th><th>name</th><th>severity</th><th>count</th><th>spec</th></tr></thead><tbody id="t-rules"></tbody></table></div>
        <h2>Findings by device</h2>
        <div class="scroll"><table class="wide-first"><thead><tr><th>device / host / client</th><th>role</th><th>protocol</th><th>errors</th><th>warnings</th><th>info</th></tr></thead><tbody id="t-devices"></tbody></table></div>
        <h2>Findings <span id="ds-fcount"></span></h2>
        <div class="scroll"><table><thead><tr><th>frames</th><th>severity</th><th>rule</th><th>message</th><th>device</th></tr></thead><tbody id="t-findings"></tbody></table></div>
        <h2>Inventory: devices and hosts</h2>
        <div class="scroll"><table><thead><tr><th>protocol</th><th>id</th><th>addresses</th><th>server, types or services</th><th>messages</th><th>findings e/w/i</th></tr></thead><tbody id="t-inv-dev"></tbody></table></div>
        <h2>Inventory: services</h2>
        <div class="scroll"><table class="wide-first"><thead><tr><th>instance</th><th>host</th><th>port</th><th>TXT</th><th>addresses</th></tr></thead><tbody id="t-inv-svc"></tbody></table></div>
        </section>
        </div>
        <pre id="ds-selftest" hidden></pre>
        <noscript><p>This report draws its timeline and tables with JavaScript (its own, inside this file; nothing is loaded from the network).</p></noscript>
        """#

    static let script = #"""
        (async function () {
        'use strict';
        const stages = { start: Math.round(performance.now()) };
        // DiscoScope HTML report. Every string from the capture reaches the page through
        // textContent or the canvas's fillText: never as markup.
        const violations = [];
        document.addEventListener('securitypolicyviolation', function (e) {
          violations.push(String(e.violatedDirective) + ' ' + String(e.blockedURI));
        });
        const $ = function (id) { return document.getElementById(id); };
        function el(tag, text, cls) {
          const e = document.createElement(tag);
          if (text !== undefined && text !== null) e.textContent = String(text);
          if (cls) e.className = cls;
          return e;
        }
        function row(cells, cls) {
          const tr = el('tr', null, cls);
          for (const c of cells) tr.appendChild(c instanceof Node ? c : el('td', c));
          // The first column does not wrap: what it cuts off (a long device ID) is in its title.
          if (tr.firstChild) tr.firstChild.title = tr.firstChild.textContent;
          return tr;
        }

        // ---- Data

        // The data: a JSON array, as text or (a large report) compressed: a zlib stream in base64.
        async function data() {
          const block = $('ds-data');
          if (block.getAttribute('data-encoding') !== 'deflate-base64') return JSON.parse(block.textContent);
          const b = atob(block.textContent.replace(/\s+/g, ''));
          const bytes = new Uint8Array(b.length);
          for (let k = 0; k < b.length; k++) bytes[k] = b.charCodeAt(k);
          stages.decoded = Math.round(performance.now());
          const text = await new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream('deflate'))).text();
          stages.inflated = Math.round(performance.now());
          return JSON.parse(text);
        }
        const recs = await data();
        stages.parsed = Math.round(performance.now());
        let meta = { files: [] }, t0s = 0, t0us = 0, summary = null, impact = [];
        const M = [], F = [], lanes = [], payloads = [], rules = [], strs = [], devices = [], services = [];
        // Segment names by index (index 0, the unnamed segment, has none).
        const segNames = [];
        // Recurring texts (addresses, device names, interop notes) come by number.
        const S = function (v) { return typeof v === 'number' ? (v >= 0 ? strs[v] : null) : v; };
        for (const r of recs) {
          switch (r[0]) {
            case 'm': M.push(r); break;
            case 'f': F.push(r); break;
            case 'p': payloads.push(r.slice(1)); break;
            case 'P': payloads.push([r[1], r[2], r[3], 1]); break;
            case 'l': lanes.push(r); break;
            case 'r': rules.push(r.slice(1)); break;
            case 'a': strs.push(r[1]); break;
            case 't0': t0s = r[1]; t0us = r[2]; break;
            case 'meta': meta = r[1]; break;
            case 'inv': (r[1].type === 'service' ? services : devices).push(r[1]); break;
            case 'sum': summary = r[1]; break;
            case 'seg': if (typeof r[1] === 'number' && r[1] > 0 && r[1] < 65536) segNames[r[1]] = String(r[2]); break;
            case 'impact': impact = r[1]; break;
          }
        }
        // Message fields.
        const FILE = 1, FRAME = 2, TIME = 3, SRC = 4, SPORT = 5, DST = 6, DPORT = 7, TTL = 8, MARK = 9, PAYLOAD = 10,
          LANE = 11, PAIR = 12, FLAGS = 13, FRAGS = 14, SEG = 15;
        function segOf(m) { return typeof m[SEG] === 'number' ? m[SEG] : 0; }
        function segName(k) { return k > 0 && segNames[k] !== undefined ? segNames[k] : ''; }
        // The mark's kind gives the protocol and the CONTRACT's `kind`.
        const SSDP_MARKS = { 'm-search': 'm-search', 'ssdp-response': 'response', alive: 'notify', byebye: 'notify',
          update: 'notify', notify: 'notify', other: 'other' };
        function protoOf(m) { return SSDP_MARKS[m[MARK]] ? 'ssdp' : 'mdns'; }
        function summaryOf(m) { return payloads[m[PAYLOAD]][1]; }
        // Finding fields.
        const FFILE = 1, FFRAMES = 2, FTIME = 3, FRULE = 4, FSEV = 5, FMSG = 6, FINTEROP = 7, FDEVICE = 8, FFIELD = 9,
          FATEND = 10, FSOURCE = 11, FSEGMENT = 12, FINSTANCE = 13, FPROFILE = 14;
        const SEV = { info: 1, warning: 2, error: 3 };
        const SEVNAME = ['', 'info', 'warning', 'error'];
        const SEVCOLOR = ['', '#2a7ab8', '#d88a00', '#d42a2a'];
        const n = M.length;
        const time = new Float64Array(n), lane = new Int32Array(n), worst = new Uint8Array(n), answered = new Uint8Array(n);
        const isSSDP = new Uint8Array(n);
        const byFrame = new Map();
        const key = function (file, frame) { return file * 4294967296 + frame; };
        // One host, one lane: the messages of a client or sender lane whose address is one of
        // exactly one mDNS host's addresses (its queries and probes) go on that host's lane.
        const joined = lanes.map(function (_, l) { return l; });
        // The lane of the one mDNS host each address is of (-1: of several).
        const claims = new Map();
        {
          const hostLane = new Map();
          lanes.forEach(function (x, l) { if (x[2] === 'host') hostLane.set(String(x[1]).toLowerCase(), l); });
          for (const d of devices) {
            const l = d.protocol === 'mdns' ? hostLane.get(String(d.id).toLowerCase()) : undefined;
            if (l === undefined) continue;
            for (const a of d.addresses || []) claims.set(a, claims.has(a) && claims.get(a) !== l ? -1 : l);
          }
          lanes.forEach(function (x, l) {
            const to = claims.get(x[1]);
            if ((x[2] === 'client' || x[2] === 'sender') && to !== undefined && to >= 0) joined[l] = to;
          });
        }
        for (let i = 0; i < n; i++) {
          const m = M[i];
          time[i] = m[TIME] === null ? 0 : m[TIME];
          lane[i] = joined[m[LANE]] === undefined ? m[LANE] : joined[m[LANE]];
          isSSDP[i] = protoOf(m) === 'ssdp' ? 1 : 0;
          if (m[PAIR] >= 0) answered[m[PAIR]] = 1;
          byFrame.set(key(m[FILE], m[FRAME]), i);
        }
        const msgFindings = new Map();
        const findingMsg = new Int32Array(F.length).fill(-1);
        // The lanes of devices and hosts by name, and of clients and senders by address.
        const laneByName = new Map(), laneBySender = new Map();
        lanes.forEach(function (x, l) {
          if (x[2] === 'device' || x[2] === 'host') laneByName.set(String(x[1]).toLowerCase(), l);
          else if (x[2] === 'client' || x[2] === 'sender') { if (!laneBySender.has(x[1])) laneBySender.set(x[1], l); }
        });
        // Whose a finding is, as the inventory, the text summary and explain count it: the
        // device or host its `device` names; one that names none is no device's or host's,
        // though its message is on a host's lane (a forwarder's copy of the host's records):
        // it counts for its sender's lane, else for the lane of its message when that is a
        // client's or sender's, else for no lane (-1). The table of findings by device and its
        // filter read this.
        const findingLane = new Int32Array(F.length).fill(-1);
        const laneCounts = lanes.map(function () { return [0, 0, 0, 0]; });
        const unattributed = [0, 0, 0, 0];
        for (let j = 0; j < F.length; j++) {
          const f = F[j];
          const s = SEV[f[FSEV]] || 1;
          const fr = f[FFRAMES];
          const found = fr.length ? byFrame.get(key(f[FFILE], fr[0])) : undefined;
          const i = found === undefined ? -1 : found;
          if (i >= 0) {
            findingMsg[j] = i;
            if (!msgFindings.has(i)) msgFindings.set(i, []);
            msgFindings.get(i).push(j);
            if (s > worst[i]) worst[i] = s;
          }
          const device = S(f[FDEVICE]);
          let l = -1;
          if (device !== null && device !== undefined) {
            // SSDP findings name `uuid:X`, their lanes `X`.
            const name = String(device).toLowerCase();
            const found = laneByName.has(name) ? laneByName.get(name) : laneByName.get(name.replace(/^uuid:/, ''));
            // A device the timeline has no lane of: its message's lane, unless that is another
            // device's or host's.
            const role = i >= 0 && lanes[lane[i]] ? lanes[lane[i]][2] : '';
            l = found !== undefined ? found : i >= 0 && role !== 'device' && role !== 'host' ? lane[i] : -1;
          } else if ((String(ruleOf(f)[0]).indexOf('MDNS-') === 0 || f[FINSTANCE] === 1)
              && claims.get(S(f[FSOURCE])) >= 0) {
            // An mDNS finding (or a profile finding about a DNS-SD instance) that names no
            // host, from an address of exactly one host: that host's, as the inventory counts it.
            l = claims.get(S(f[FSOURCE]));
          } else {
            // A sender's lane joined into its host's (`joined`) is the host's: not counted there.
            const found = laneBySender.get(S(f[FSOURCE]));
            const sender = found !== undefined && joined[found] === found ? found : undefined;
            const role = i >= 0 && lanes[lane[i]] ? lanes[lane[i]][2] : '';
            l = sender !== undefined ? sender : i >= 0 && role !== 'device' && role !== 'host' ? lane[i] : -1;
          }
          findingLane[j] = l;
          if (l >= 0) laneCounts[l][s]++; else unattributed[s]++;
        }
        // The segments each lane's messages were on, in the run's order of segments.
        const laneSegs = lanes.map(function () { return []; });
        for (let i = 0; i < n; i++) {
          const k = segOf(M[i]);
          if (k > 0 && laneSegs[lane[i]].indexOf(k) < 0) laneSegs[lane[i]].push(k);
        }
        for (const x of laneSegs) x.sort(function (a, b) { return a - b; });
        function laneSegText(l) { return laneSegs[l] && laneSegs[l].length ? ' [' + laneSegs[l].map(segName).join(', ') + ']' : ''; }
        const order = new Uint32Array(n);
        for (let i = 0; i < n; i++) order[i] = i;
        order.sort(function (a, b) { return time[a] - time[b] || a - b; });
        const sorted = new Float64Array(n);
        for (let k = 0; k < n; k++) sorted[k] = time[order[k]];
        const tMin = n ? sorted[0] : 0, tMax = n ? sorted[n - 1] : 1;
        stages.indexed = Math.round(performance.now());

        // ---- Text as the text report prints it
        function two(v) { return v < 10 ? '0' + v : String(v); }
        function clock(us) {
          const totalUs = t0us + Math.round(us);
          const secs = t0s + Math.floor(totalUs / 1e6);
          const micro = ((totalUs % 1e6) + 1e6) % 1e6;
          const d = new Date(secs * 1000);
          return two(d.getUTCHours()) + ':' + two(d.getUTCMinutes()) + ':' + two(d.getUTCSeconds()) + '.' +
            String(micro).padStart(6, '0');
        }
        function dateText(us) {
          const d = new Date((t0s + Math.floor((t0us + us) / 1e6)) * 1000);
          // A capture can claim a time no Date holds (toISOString would throw).
          if (!isFinite(d.getTime())) return t0s + ' s + ' + Math.round(us) + ' µs since 1970';
          return d.toISOString().slice(0, 10) + ' ' + clock(us) + ' UTC';
        }
        function endpoint(a, p) { return (a.indexOf(':') >= 0 ? '[' + a + ']' : a) + ':' + p; }
        function messageLine(m) {
          let s = m[FRAME] + ' ' + clock(m[TIME] || 0) + ' ' + endpoint(S(m[SRC]), m[SPORT]) + ' > ' +
            endpoint(S(m[DST]), m[DPORT]) + (protoOf(m) === 'ssdp' ? ' SSDP ' : ' mDNS ') + summaryOf(m);
          if (m[FLAGS] & 1) s += ' [truncated]';
          if (m[FRAGS] && m[FRAGS].length) s += ' [reassembled from frames ' + m[FRAGS].join(',') + ']';
          return s;
        }
        function payloadBytes(m) {
          if (m[PAYLOAD] < 0) return new Uint8Array(0);
          const p = payloads[m[PAYLOAD]];
          // A payload that is text comes as text (`P`), any other in base64 (`p`).
          if (p[3]) return new TextEncoder().encode(p[0]);
          const b = atob(p[0]);
          const out = new Uint8Array(b.length);
          for (let k = 0; k < b.length; k++) out[k] = b.charCodeAt(k);
          return out;
        }
        function hexDump(bytes) {
          const lines = [];
          for (let off = 0; off < bytes.length; off += 16) {
            let hex = '', asc = '';
            for (let k = 0; k < 16; k++) {
              if (off + k < bytes.length) {
                const b = bytes[off + k];
                hex += (b < 16 ? '0' : '') + b.toString(16);
                asc += b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.';
              } else hex += '  ';
              if (k % 2 === 1) hex += ' ';
            }
            lines.push('0x' + off.toString(16).padStart(4, '0') + ':  ' + hex + ' ' + asc);
          }
          return lines.join('\n');
        }
        /**
         * The lines -v prints: given, or (SSDP) made from the payload as the writer checked they
         * would be: lines up to the blank one; after the start line, `name: value` trimmed.
         */
        function detailOf(m) {
          const d = payloads[m[PAYLOAD]][2];
          if (d) return d;
          const p = payloadBytes(m), lines = [], dec = new TextDecoder('utf-8', { ignoreBOM: true });
          const line = function (a, b) {
            const text = dec.decode(p.subarray(a, b));
            const colon = text.indexOf(':');
            if (!lines.length || colon < 0) return text;
            return text.slice(0, colon).replace(/[ \t]+$/, '') + ': ' + text.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
          };
          let start = 0;
          for (let i = 0; i < p.length; i++) {
            if (p[i] !== 10) continue;
            let end = i;
            if (end > start && p[end - 1] === 13) end--;
            if (end === start) return lines;
            lines.push(line(start, end));
            start = i + 1;
          }
          if (start < p.length) lines.push(line(start, p.length));
          return lines;
        }
        function ruleOf(f) { return rules[f[FRULE]] || ['?', '?', '']; }
        function interopOf(f) { return S(f[FINTEROP]); }
        function laneLabel(l) { const r = lanes[l]; return r ? r[1] : '?'; }

        // ---- Filters
        const fLane = $('f-lane'), fProto = $('f-proto'), fRule = $('f-rule'), fSev = $('f-sev'), fSeg = $('f-seg'),
          fProf = $('f-prof');
        function option(sel, value, text) { const o = el('option', text); o.value = value; sel.appendChild(o); }
        option(fLane, '', 'all devices and clients');
        const laneOrder = lanes.map(function (_, k) { return k; });
        const ROLE = { device: 0, host: 1, sender: 2, client: 3, other: 4 };
        laneOrder.sort(function (a, b) { return (ROLE[lanes[a][2]] - ROLE[lanes[b][2]]) || a - b; });
        for (const l of laneOrder) if (joined[l] === l) option(fLane, String(l), lanes[l][2] + ' ' + lanes[l][1]);
        option(fSeg, '', 'all segments');
        segNames.forEach(function (name, k) { if (name !== undefined) option(fSeg, String(k), name); });
        if (segNames.length) $('l-seg').hidden = false;
        option(fRule, '', 'all rules');
        for (let k = 0; k < rules.length; k++) option(fRule, String(k), rules[k][0] + ' ' + rules[k][1]);
        // The service profiles the findings were judged for (a PROF rule's), in name order.
        option(fProf, '', 'all profiles');
        const profileNames = Array.from(new Set(F.map(function (f) { return f[FPROFILE]; }).filter(function (p) {
          return typeof p === 'string';
        }))).sort();
        for (const p of profileNames) option(fProf, p, p);
        if (profileNames.length) $('l-prof').hidden = false;
        const visible = new Uint8Array(n).fill(1);
        let laneRow = new Int32Array(lanes.length), rowLanes = [];
        function applyFilters() {
          const lf = fLane.value === '' ? -1 : Number(fLane.value);
          const pf = fProto.value, rf = fRule.value === '' ? -1 : Number(fRule.value), sf = Number(fSev.value || 0);
          const gf = fSeg.value === '' ? -1 : Number(fSeg.value), qf = fProf.value;
          const used = new Uint8Array(lanes.length);
          for (let i = 0; i < n; i++) {
            let ok = (lf < 0 || lane[i] === lf) && (pf === '' || (isSSDP[i] ? 'ssdp' : 'mdns') === pf) &&
              (gf < 0 || segOf(M[i]) === gf);
            if (ok && (rf >= 0 || sf > 0 || qf !== '')) {
              ok = false;
              for (const j of msgFindings.get(i) || []) {
                if ((rf < 0 || F[j][FRULE] === rf) && (SEV[F[j][FSEV]] || 0) >= sf && (qf === '' || F[j][FPROFILE] === qf)) {
                  ok = true;
                  break;
                }
              }
            }
            visible[i] = ok ? 1 : 0;
            if (ok) used[lane[i]] = 1;
          }
          rowLanes = laneOrder.filter(function (l) { return used[l]; });
          laneRow = new Int32Array(lanes.length).fill(-1);
          rowLanes.forEach(function (l, r) { laneRow[l] = r; });
          rowTop = Math.max(0, Math.min(rowTop, rowLanes.length - 1));
          stages.filtered = Math.round(performance.now());
          fillFindingTable();
          stages.listed = Math.round(performance.now());
          sizeCanvas();
          stages.sized = Math.round(performance.now());
          draw();
          stages.drawn = Math.round(performance.now());
        }

        // ---- Timeline
        const canvas = $('ds-canvas'), ctx = canvas.getContext('2d');
        const ROWS = 100, PAIRS = 5000;
        const GUT = 230, AXIS = 22, LH = 18, BUCKET = 4;
        const view = { start: tMin - 1, span: Math.max(tMax - tMin, 1000) + 2 };
        let rowTop = 0, rows = 1, plotW = 100, selected = -1;
        let related = new Set();
        let hits = [], lastAccounted = 0;
        const KIND_LABEL = {
          'm-search': 'M-SEARCH', 'ssdp-response': 'SSDP response', alive: 'NOTIFY alive', byebye: 'NOTIFY byebye',
          update: 'NOTIFY update', notify: 'NOTIFY', other: 'other', query: 'mDNS query', probe: 'mDNS probe',
          'mdns-response': 'mDNS response', announcement: 'mDNS announcement', goodbye: 'mDNS goodbye'
        };
        function fit() {
          view.start = tMin - Math.max((tMax - tMin) * 0.03, 500);
          view.span = Math.max((tMax - tMin) * 1.06, 1000) + 1000;
          rowTop = 0;
        }
        function sizeCanvas() {
          const dpr = window.devicePixelRatio || 1;
          const w = Math.max(400, canvas.parentElement.clientWidth - 32);
          const h = AXIS + Math.min(Math.max(rowLanes.length, 1), 30) * LH + 4;
          canvas.style.width = w + 'px';
          canvas.style.height = h + 'px';
          canvas.width = Math.round(w * dpr);
          canvas.height = Math.round(h * dpr);
          ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
          plotW = w - GUT;
          rows = Math.floor((h - AXIS - 4) / LH);
        }
        function lowerBound(t) {
          let lo = 0, hi = n;
          while (lo < hi) { const mid = (lo + hi) >> 1; if (sorted[mid] < t) lo = mid + 1; else hi = mid; }
          return lo;
        }
        function xOf(i) { return GUT + (time[i] - view.start) * plotW / view.span; }
        function yOf(i) { return AXIS + (laneRow[lane[i]] - rowTop) * LH + LH / 2; }
        function niceStep(us) {
          const p = Math.pow(10, Math.floor(Math.log10(us)));
          for (const m of [1, 2, 5, 10]) if (m * p >= us) return m * p;
          return 10 * p;
        }
        function spanText(us) {
          const a = Math.abs(us);
          if (a === 0) return '0 s';
          if (a >= 60e6) return (us / 60e6).toFixed(a >= 600e6 ? 0 : 1) + ' min';
          if (a >= 1e6) return (us / 1e6).toFixed(a >= 10e6 ? 0 : 1) + ' s';
          if (a >= 1e3) return (us / 1e3).toFixed(a >= 10e3 ? 0 : 1) + ' ms';
          return Math.round(us) + ' µs';
        }
        function shape(kind, x, y, color, unanswered) {
          ctx.fillStyle = color;
          ctx.strokeStyle = color;
          ctx.lineWidth = 1.5;
          ctx.beginPath();
          switch (kind) {
            case 'm-search': case 'query':
              ctx.arc(x, y, 4, 0, 7);
              ctx.fillStyle = '#fff';
              ctx.fill();
              if (unanswered) { ctx.strokeStyle = '#d42a2a'; ctx.setLineDash([2, 2]); }
              ctx.stroke();
              ctx.setLineDash([]);
              return;
            case 'ssdp-response': case 'mdns-response':
              ctx.arc(x, y, 4, 0, 7); ctx.fill(); return;
            case 'alive': case 'update': case 'notify':
              ctx.moveTo(x, y - 5); ctx.lineTo(x + 5, y + 4); ctx.lineTo(x - 5, y + 4); ctx.closePath(); ctx.fill(); return;
            case 'byebye': case 'goodbye':
              ctx.moveTo(x, y + 5); ctx.lineTo(x + 5, y - 4); ctx.lineTo(x - 5, y - 4); ctx.closePath(); ctx.fill(); return;
            case 'probe':
              ctx.moveTo(x, y - 5); ctx.lineTo(x + 5, y); ctx.lineTo(x, y + 5); ctx.lineTo(x - 5, y); ctx.closePath();
              ctx.fill(); return;
            case 'announcement':
              ctx.rect(x - 4, y - 4, 8, 8); ctx.fill(); return;
            default:
              ctx.rect(x - 4, y - 1, 8, 3); ctx.fill();
          }
        }
        function draw() {
          const w = plotW + GUT, h = AXIS + rows * LH + 4;
          ctx.clearRect(0, 0, w, h);
          ctx.font = '11px system-ui, sans-serif';
          ctx.textBaseline = 'middle';
          // Lanes and their labels.
          for (let r = 0; r < rows && rowTop + r < rowLanes.length; r++) {
            const l = rowLanes[rowTop + r];
            const y = AXIS + r * LH;
            ctx.fillStyle = r % 2 ? '#f4f6f8' : '#fff';
            ctx.fillRect(0, y, w, LH);
            const role = lanes[l][2];
            ctx.fillStyle = role === 'client' ? '#6b4fa0' : lanes[l][3] === 'ssdp' ? '#1f5f99' : '#1d7a4c';
            const label = laneLabel(l) + laneSegText(l);
            ctx.fillText((role === 'client' ? '⇢ ' : '') + (label.length > 36 ? label.slice(0, 17) + '…' + label.slice(-17) : label),
              4, y + LH / 2);
          }
          // Time axis.
          const step = niceStep(view.span / Math.max(plotW / 110, 1));
          ctx.fillStyle = '#333';
          ctx.strokeStyle = '#ccd';
          ctx.lineWidth = 1;
          for (let t = Math.ceil(view.start / step) * step; t < view.start + view.span; t += step) {
            const x = GUT + (t - view.start) * plotW / view.span;
            ctx.beginPath(); ctx.moveTo(x, AXIS - 4); ctx.lineTo(x, h); ctx.stroke();
            ctx.fillText(spanText(t - tMin), x + 2, 8);
          }
          ctx.fillStyle = '#555';
          ctx.fillText('+ since ' + (n ? clock(tMin) : '-') + ' UTC', 4, 8);
          ctx.save();
          ctx.beginPath(); ctx.rect(GUT, AXIS, plotW, rows * LH); ctx.clip();
          // Marks, one per bucket of BUCKET pixels and lane: the worst of the bucket stands for the
          // rest, with a count bar when there are several.
          const lo = lowerBound(view.start), hi = lowerBound(view.start + view.span);
          const cells = new Map();
          let accounted = 0;
          for (let k = lo; k < hi; k++) {
            const i = order[k];
            if (!visible[i]) continue;
            const r = laneRow[lane[i]] - rowTop;
            if (r < 0 || r >= rows) continue;
            accounted++;
            const c = r * 100000 + Math.floor((time[i] - view.start) * plotW / view.span / BUCKET);
            const cell = cells.get(c);
            if (cell === undefined) cells.set(c, [i, 1]);
            else { cell[1]++; if (worst[i] > worst[cell[0]]) cell[0] = i; }
          }
          lastAccounted = accounted;
          // Pairs: a line from the query to each answer with one end on a lane in view (at most
          // PAIRS lines: beyond, zoom in).
          let pairLines = 0;
          ctx.strokeStyle = 'rgba(90,90,140,0.45)';
          ctx.lineWidth = 1;
          ctx.beginPath();
          for (let k = lo; k < hi && pairLines < PAIRS; k++) {
            const i = order[k], p = M[i][PAIR];
            if (p < 0 || !visible[i] || !visible[p] || laneRow[lane[i]] < 0 || laneRow[lane[p]] < 0) continue;
            const ri = laneRow[lane[i]] - rowTop, rp = laneRow[lane[p]] - rowTop;
            if ((ri < 0 || ri >= rows) && (rp < 0 || rp >= rows)) continue;
            ctx.moveTo(xOf(p), yOf(p));
            ctx.lineTo(xOf(i), yOf(i));
            pairLines++;
          }
          ctx.stroke();
          hits = [];
          for (const [c, cell] of cells) {
            const i = cell[0], count = cell[1];
            const x = count > 1 ? GUT + ((c % 100000) + 0.5) * BUCKET : xOf(i), y = yOf(i);
            if (count > 1) {
              ctx.fillStyle = 'rgba(60,60,60,0.35)';
              const bar = Math.min(LH / 2 - 1, 1 + Math.log2(count));
              ctx.fillRect(x - BUCKET / 2, y + 5, BUCKET, bar > 0 ? Math.min(bar, 4) : 1);
            }
            const kind = M[i][MARK];
            shape(kind, x, y, isSSDP[i] ? '#1f5f99' : '#1d7a4c',
              (kind === 'm-search' || kind === 'query') && !answered[i]);
            if (worst[i]) {
              ctx.fillStyle = SEVCOLOR[worst[i]];
              ctx.beginPath(); ctx.arc(x + 4, y - 5, 2.6, 0, 7); ctx.fill();
            }
            hits.push([x, y, i, count]);
          }
          for (const i of related) ring(i, '#e0b000', 7);
          if (selected >= 0) ring(selected, '#000', 7);
          ctx.restore();
          ctx.fillStyle = '#555';
          const shownRows = Math.min(rows, rowLanes.length - rowTop);
          $('ds-viewinfo').textContent = 'lanes ' + (rowLanes.length ? rowTop + 1 : 0) + '–' + (rowTop + shownRows) + ' of ' +
            rowLanes.length + ' · window ' + spanText(view.span) + ' · ' + accounted + ' messages in view' +
            (pairLines >= PAIRS ? ' (more than ' + PAIRS + ' query → answer lines: zoom in to see them all)' : '');
        }
        function ring(i, color, radius) {
          if (i < 0 || !visible[i]) return;
          const r = laneRow[lane[i]] - rowTop;
          if (r < 0 || r >= rows || time[i] < view.start || time[i] > view.start + view.span) return;
          ctx.strokeStyle = color;
          ctx.lineWidth = 2;
          ctx.beginPath(); ctx.arc(xOf(i), yOf(i), radius, 0, 7); ctx.stroke();
        }
        function hitTest(x, y) {
          let best = -1, bd = 64;
          for (const h of hits) {
            const d = (h[0] - x) * (h[0] - x) + (h[1] - y) * (h[1] - y);
            if (d < bd) { bd = d; best = h[2]; }
          }
          return best;
        }
        /** Brings message i into view (its lane visible, the window around it). */
        function reveal(i) {
          if (!visible[i]) {
            fLane.value = ''; fProto.value = ''; fRule.value = ''; fSev.value = ''; fProf.value = '';
            applyFilters();
          }
          const r = laneRow[lane[i]];
          if (r < rowTop || r >= rowTop + rows) rowTop = Math.max(0, r - Math.floor(rows / 2));
          if (time[i] < view.start || time[i] > view.start + view.span) view.start = time[i] - view.span / 2;
        }

        // ---- Details
        function select(i, highlight) {
          selected = i;
          reveal(i);
          related = new Set();
          const fs = msgFindings.get(i) || [];
          const frames = highlight ? highlight : fs.reduce(function (a, j) { return a.concat(F[j][FFRAMES].slice(1)); }, []);
          for (const fr of frames) {
            const k = byFrame.get(key(M[i][FILE], fr));
            if (k !== undefined && k !== i) related.add(k);
          }
          const m = M[i];
          const text = [messageLine(m)];
          for (const d of detailOf(m)) text.push('        ' + d);
          $('ds-title').textContent = (KIND_LABEL[m[MARK]] || m[MARK]) + ' · frame ' + m[FRAME] +
            (meta.files.length > 1 ? ' of ' + meta.files[m[FILE]] : '') + (segOf(m) ? ' · segment ' + segName(segOf(m)) : '') +
            ' · ' + dateText(m[TIME] || 0) + ' · lane ' + laneLabel(lane[i]) + ' · IP TTL ' + m[TTL];
          $('ds-text').textContent = text.join('\n');
          $('ds-hex').textContent = hexDump(payloadBytes(m));
          const p = m[PAIR];
          const pairBox = $('ds-pair');
          pairBox.textContent = '';
          if (p >= 0) pairBox.appendChild(link('answers frame ' + M[p][FRAME] + ' (' + spanText(time[i] - time[p]) + ' later)', p));
          const answers = [];
          if (m[MARK] === 'm-search' || m[MARK] === 'query' || m[MARK] === 'probe') {
            for (let k = i + 1; k < n && answers.length < 50; k++) if (M[k][PAIR] === i) answers.push(k);
            if (!answers.length && m[MARK] !== 'probe') pairBox.appendChild(el('span', 'unanswered', 'unanswered'));
            for (const a of answers) pairBox.appendChild(link('answer: frame ' + M[a][FRAME] + ' from ' + laneLabel(lane[a]), a));
          }
          const box = $('ds-findings');
          box.textContent = '';
          for (const j of fs) box.appendChild(findingBlock(j));
          draw();
        }
        function link(text, i) {
          const b = el('button', text, 'link');
          b.addEventListener('click', function () { select(i); });
          return b;
        }
        function findingBlock(j) {
          const f = F[j], r = ruleOf(f);
          const d = el('div', null, 'finding sev-' + f[FSEV]);
          const h = el('div');
          h.appendChild(el('b', f[FSEV] + ' ' + r[0]));
          h.appendChild(el('span', ' ' + r[1] + ': ' + S(f[FMSG])));
          d.appendChild(h);
          d.appendChild(el('div', 'spec: ' + r[2], 'spec'));
          const io = interopOf(f);
          if (io) d.appendChild(el('div', 'interop: ' + io, 'interop'));
          if (f[FFIELD]) d.appendChild(el('div', 'field: ' + f[FFIELD], 'spec'));
          if (f[FDEVICE] !== null) d.appendChild(el('div', 'device: ' + S(f[FDEVICE]), 'spec'));
          if (f[FATEND]) d.appendChild(el('div', 'known at the end of the input', 'spec'));
          const fr = f[FFRAMES];
          if (fr.length > 1) {
            const b = el('button', 'frames ' + fr.join(', ') + ' (highlight related)', 'link');
            b.addEventListener('click', function () { showFinding(j); });
            d.appendChild(b);
          }
          return d;
        }
        function showFinding(j) {
          const i = findingMsg[j];
          if (i < 0) return;
          select(i, F[j][FFRAMES].slice(1));
        }

        // ---- Tables
        /**
         * Rows of a table made as they scroll into view: the first ROWS now, ROWS more each time the
         * box is scrolled near its end (a table of every finding of a large capture costs no layout
         * at first).
         */
        function lazyTable(tbody, items, render) {
          tbody.textContent = '';
          const box = tbody.closest('.scroll');
          let next = 0;
          const more = function () {
            const end = Math.min(items.length, next + ROWS);
            for (; next < end; next++) tbody.appendChild(render(items[next]));
          };
          if (!box.dsLazy) {
            box.addEventListener('scroll', function () {
              if (box.scrollTop + box.clientHeight >= box.scrollHeight - 400) box.dsLazy();
            });
          }
          box.dsLazy = more;
          more();
        }
        function fillTables() {
          const byRule = new Map();
          for (const f of F) {
            const k = f[FRULE];
            if (!byRule.has(k)) byRule.set(k, [0, 0]);
            const e = byRule.get(k);
            e[0]++; e[1] = Math.max(e[1], SEV[f[FSEV]] || 0);
          }
          const ruleRows = [...byRule].sort(function (a, b) { return b[1][1] - a[1][1] || b[1][0] - a[1][0]; });
          lazyTable($('t-rules'), ruleRows, function (entry) {
            const k = entry[0], e = entry[1], r = rules[k];
            const tRow = row([r[0], r[1], SEVNAME[e[1]], String(e[0]), r[2]], 'click');
            tRow.addEventListener('click', function () { fRule.value = String(k); fSev.value = ''; applyFilters(); first(); });
            return tRow;
          });
          const ls = lanes.map(function (_, l) { return l; }).filter(function (l) { return laneCounts[l][1] + laneCounts[l][2] + laneCounts[l][3]; });
          ls.sort(function (a, b) {
            const x = laneCounts[a], y = laneCounts[b];
            return y[3] - x[3] || y[2] - x[2] || y[1] - x[1];
          });
          if (unattributed[1] + unattributed[2] + unattributed[3]) ls.push(-1);
          lazyTable($('t-devices'), ls, function (l) {
            if (l < 0) {
              const u = unattributed;
              return row(['(findings that name no device or host)', '', '', String(u[3]), String(u[2]), String(u[1])], '');
            }
            const c = laneCounts[l];
            const tRow = row([lanes[l][1], lanes[l][2], lanes[l][3], String(c[3]), String(c[2]), String(c[1])], 'click');
            tRow.addEventListener('click', function () { fLane.value = String(l); fRule.value = ''; applyFilters(); first(); });
            return tRow;
          });
          lazyTable($('t-inv-dev'), devices, function (d) {
            const found = laneByName.get(String(d.id).toLowerCase()), l = found === undefined ? -1 : found;
            const what = d.protocol === 'ssdp' ? (d.server || '') + ' ' + (d.types || []).join(' ') : (d.services || []).join(' ');
            const c = d.findings || {};
            const tRow = row([d.protocol, d.id, (d.addresses || []).join(' '), what, String(d.messages),
              (c.error || 0) + '/' + (c.warning || 0) + '/' + (c.info || 0)], l >= 0 ? 'click' : '');
            if (l >= 0) tRow.addEventListener('click', function () { fLane.value = String(l); applyFilters(); first(); });
            return tRow;
          });
          lazyTable($('t-inv-svc'), services, function (s) {
            const found = laneByName.get(String(s.host || '').toLowerCase()), l = found === undefined ? -1 : found;
            const tRow = row([s.instance, s.host || '', s.port === null || s.port === undefined ? '' : String(s.port),
              (s.txt || []).join(' '), (s.addresses || []).join(' ')], l >= 0 ? 'click' : '');
            if (l >= 0) tRow.addEventListener('click', function () { fLane.value = String(l); applyFilters(); first(); });
            return tRow;
          });
        }
        function first() {
          for (let k = 0; k < n; k++) if (visible[order[k]]) { select(order[k]); return; }
        }
        function fillFindingTable() {
          const lf = fLane.value === '' ? -1 : Number(fLane.value), pf = fProto.value;
          const rf = fRule.value === '' ? -1 : Number(fRule.value), sf = Number(fSev.value || 0);
          const gf = fSeg.value === '' ? -1 : Number(fSeg.value), qf = fProf.value;
          const shown = [];
          for (let j = 0; j < F.length; j++) {
            const f = F[j], i = findingMsg[j];
            if (gf >= 0 && (typeof f[FSEGMENT] === 'number' ? f[FSEGMENT] : 0) !== gf) continue;
            if (rf >= 0 && f[FRULE] !== rf) continue;
            if (qf !== '' && f[FPROFILE] !== qf) continue;
            if ((SEV[f[FSEV]] || 0) < sf) continue;
            if (lf >= 0 && findingLane[j] !== lf) continue;
            if (pf !== '' && i >= 0 && (isSSDP[i] ? 'ssdp' : 'mdns') !== pf) continue;
            shown.push(j);
          }
          lazyTable($('t-findings'), shown, function (j) {
            const f = F[j], i = findingMsg[j], r = ruleOf(f);
            const tRow = row([f[FFRAMES].join(', ') || 'end', f[FSEV], r[0], S(f[FMSG]), i >= 0 ? laneLabel(lane[i]) : S(f[FSOURCE])],
              'click sev-' + f[FSEV]);
            tRow.addEventListener('click', function () { showFinding(j); });
            return tRow;
          });
          $('ds-fcount').textContent = '(' + shown.length + ')';
        }

        // ---- Interaction
        let drag = null;
        canvas.addEventListener('mousedown', function (e) {
          drag = { x: e.offsetX, y: e.offsetY, start: view.start, top: rowTop, moved: false };
        });
        window.addEventListener('mousemove', function (e) {
          if (!drag) return;
          const dx = e.offsetX - drag.x, dy = e.offsetY - drag.y;
          if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
          if (!drag.moved || e.target !== canvas) return;
          view.start = drag.start - dx * view.span / plotW;
          rowTop = Math.max(0, Math.min(rowLanes.length - 1, drag.top - Math.round(dy / LH)));
          draw();
        });
        window.addEventListener('mouseup', function (e) {
          if (drag && !drag.moved && e.target === canvas) {
            const i = hitTest(e.offsetX, e.offsetY);
            if (i >= 0) select(i);
          }
          drag = null;
        });
        function zoom(factor, x) {
          const at = view.start + (Math.max(0, x - GUT) / plotW) * view.span;
          view.span = Math.min(Math.max(view.span * factor, 50), (tMax - tMin + 1000) * 4);
          view.start = at - (Math.max(0, x - GUT) / plotW) * view.span;
          draw();
        }
        canvas.addEventListener('wheel', function (e) {
          e.preventDefault();
          if (e.offsetX < GUT || e.shiftKey) {
            rowTop = Math.max(0, Math.min(rowLanes.length - 1, rowTop + (e.deltaY > 0 ? 3 : -3)));
            draw();
          } else zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX);
        }, { passive: false });
        $('z-in').addEventListener('click', function () { zoom(0.5, GUT + plotW / 2); });
        $('z-out').addEventListener('click', function () { zoom(2, GUT + plotW / 2); });
        $('z-fit').addEventListener('click', function () { fit(); draw(); });
        for (const s of [fLane, fProto, fRule, fSev, fSeg, fProf]) s.addEventListener('change', applyFilters);
        window.addEventListener('resize', function () { sizeCanvas(); draw(); });

        // ---- Start
        $('ds-files').textContent = meta.files.join(', ') + (n ? ' · from ' + dateText(tMin) + ' · ' + spanText(tMax - tMin) : '');
        let unattached = 0;
        for (let j = 0; j < F.length; j++) if (findingMsg[j] < 0) unattached++;
        const sc = summary && summary.findings ? summary.findings : {};
        $('ds-counts').textContent = n + ' messages (' + (summary ? summary.ssdp_messages + ' SSDP, ' + summary.mdns_messages + ' mDNS' : '') +
          ') · ' + F.length + ' findings (' + (sc.error || 0) + ' errors, ' + (sc.warning || 0) + ' warnings, ' + (sc.info || 0) +
          ' info' + (unattached ? '; ' + unattached + ' not on a message' : '') + ') · ' + lanes.length + ' lanes · ' +
          devices.length + ' devices and hosts, ' + services.length + ' services';
        // What hides devices and what nobody answered, one line each, before the rest.
        for (const line of impact) { const li = document.createElement('li'); li.textContent = line; $('ds-impact').appendChild(li); }
        fit();
        stages.summary = Math.round(performance.now());
        fillTables();
        stages.tables = Math.round(performance.now());
        applyFilters();
        const interactiveMs = performance.now();
        document.body.setAttribute('data-ready', '1');

        // ---- Self-check (report.html#selftest): the browser test reads the result from the DOM.
        const api = { messages: n, findings: F.length, select: select };
        window.discoscopeReport = api;
        // report.html#frame=N (or #frame=FILE:N, FILE counted from 0) opens with that message selected.
        const wanted = /^#frame=(?:(\d+):)?(\d+)$/.exec(location.hash);
        if (wanted) {
          const i = byFrame.get(key(Number(wanted[1] || 0), Number(wanted[2])));
          if (i !== undefined) select(i);
        }
        if (location.hash === '#selftest') {
          const res = { messages: n, findings: F.length, lanes: lanes.length, interactiveMs: Math.round(interactiveMs),
            impact: Array.from($('ds-impact').children).map(function (li) { return li.textContent; }) };
          res.accountedAtFit = lastAccounted;
          res.stages = stages;
          res.rowsAtFit = rowLanes.length;
          let target = -1;
          for (let j = 0; j < F.length && target < 0; j++) if (findingMsg[j] >= 0) target = findingMsg[j];
          if (target < 0 && n) target = 0;
          res.clicked = -1;
          if (target >= 0) {
            reveal(target);
            view.span = Math.max(view.span / 4, 1000);
            view.start = time[target] - view.span / 2;
            draw();
            const h = hits.find(function (x) { return x[2] === target; }) || hits.find(function (x) { return x[3] >= 1; });
            if (h) {
              const rect = canvas.getBoundingClientRect();
              const opts = { bubbles: true, clientX: rect.left + h[0], clientY: rect.top + h[1] };
              canvas.dispatchEvent(new MouseEvent('mousedown', opts));
              canvas.dispatchEvent(new MouseEvent('mouseup', opts));
              res.clicked = selected;
              res.clickedFrame = selected >= 0 ? M[selected][FRAME] : null;
              res.detailShowsMessage = selected >= 0 && $('ds-text').textContent.indexOf(summaryOf(M[selected])) >= 0 &&
                $('ds-text').textContent.indexOf(String(M[selected][FRAME]) + ' ') === 0;
              res.detailFindings = $('ds-findings').children.length;
              res.expectedFindings = selected >= 0 ? (msgFindings.get(selected) || []).length : 0;
              res.hexLines = $('ds-hex').textContent ? $('ds-hex').textContent.split('\n').length : 0;
            }
          }
          // A finding that names related frames: selecting it highlights them.
          res.relatedChecked = 0;
          for (let j = 0; j < F.length; j++) {
            if (findingMsg[j] < 0 || F[j][FFRAMES].length < 2) continue;
            const want = F[j][FFRAMES].slice(1).map(function (fr) { return byFrame.get(key(F[j][FFILE], fr)); })
              .filter(function (k) { return k !== undefined && k !== findingMsg[j]; });
            if (!want.length) continue;
            showFinding(j);
            res.relatedChecked = want.length;
            res.relatedHighlighted = want.filter(function (k) { return related.has(k); }).length;
            break;
          }
          // The findings table grows as it is scrolled to its end.
          const fb = $('t-findings'), fbox = fb.closest('.scroll'), before = fb.children.length;
          fbox.scrollTop = fbox.scrollHeight;
          fbox.dispatchEvent(new Event('scroll'));
          res.lazyRows = [before, fb.children.length];
          // An inventory row leads to its device's lane and first message.
          const invRow = document.querySelector('#t-inv-dev tr.click, #t-inv-svc tr.click');
          if (invRow) {
            invRow.click();
            res.inventoryLinks = selected >= 0 && String(lane[selected]) === fLane.value;
          }
          // Findings by device and host as the table counts them: [errors, warnings, info].
          res.deviceCounts = {};
          lanes.forEach(function (x, l) {
            if (x[2] === 'device' || x[2] === 'host') res.deviceCounts[x[1]] = [laneCounts[l][3], laneCounts[l][2], laneCounts[l][1]];
          });
          res.deviceTableRows = $('t-devices').children.length;
          // Segments: each lane's, the message panel's, the filter's.
          // The profile filter: [messages shown, findings listed] against those of the profile.
          res.profiles = profileNames;
          if (profileNames.length) {
            const p = profileNames[0], of = [];
            for (let j = 0; j < F.length; j++) if (F[j][FPROFILE] === p) of.push(j);
            const msgs = new Set(of.map(function (j) { return findingMsg[j]; }).filter(function (i) { return i >= 0; }));
            fLane.value = ''; fProto.value = ''; fRule.value = ''; fSev.value = ''; fSeg.value = '';
            fProf.value = p; applyFilters();
            res.profileFiltered = [visible.reduce(function (a, b) { return a + b; }, 0), $('ds-fcount').textContent,
              msgs.size, '(' + of.length + ')'];
            fProf.value = ''; applyFilters();
          }
          res.segments = segNames.filter(function (x) { return x !== undefined; });
          res.laneSegments = {};
          const shownLanes = new Set();
          for (let i = 0; i < n; i++) shownLanes.add(lane[i]);
          lanes.forEach(function (x, l) { if (shownLanes.has(l)) res.laneSegments[x[2] + ' ' + x[1]] = laneSegs[l].map(segName); });
          if (n && segOf(M[0])) { select(0); res.panelSegment = $('ds-title').textContent.indexOf(' · segment ' + segName(segOf(M[0])) + ' · ') >= 0; }
          if (res.segments.length) {
            const k = segNames.indexOf(res.segments[0]);
            fLane.value = ''; fProto.value = ''; fRule.value = ''; fSev.value = '';
            fSeg.value = String(k); applyFilters();
            res.segmentFiltered = [visible.reduce(function (a, b) { return a + b; }, 0), M.filter(function (m) { return segOf(m) === k; }).length];
            fSeg.value = ''; applyFilters();
          }
          res.answered = answered.reduce(function (a, b) { return a + b; }, 0);
          res.paired = M.filter(function (m) { return m[PAIR] >= 0; }).length;
          res.scripts = document.scripts.length;
          res.foreignElements = document.querySelectorAll('img,iframe,object,embed,link,base,form,meta[http-equiv=refresh]').length;
          res.inlineHandlers = document.querySelectorAll('[onerror],[onload],[onclick],[onmouseover]').length;
          res.pwned = typeof window.pwned !== 'undefined';
          res.resources = performance.getEntriesByType('resource').map(function (e) { return e.name; });
          res.violations = violations;
          res.title = document.title;
          const out = $('ds-selftest');
          out.textContent = JSON.stringify(res);
          out.hidden = false;
        }
        })();
        """#

    /// No network access of any kind; only this page's script and style run.
    static let contentSecurityPolicy: String = {
        "default-src 'none'; script-src 'sha256-" + Base64.encode(SHA256.hash(Array(script.utf8)))
            + "'; style-src 'sha256-" + Base64.encode(SHA256.hash(Array(style.utf8)))
            + "'; img-src 'none'; font-src 'none'; connect-src 'none'; media-src 'none'; object-src 'none'; "
            + "frame-src 'none'; worker-src 'none'; manifest-src 'none'; base-uri 'none'; form-action 'none'"
    }()

    /// Everything before the data: the data block is opened last.
    static let head: String =
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        + "<meta http-equiv=\"Content-Security-Policy\" content=\"" + contentSecurityPolicy + "\">\n"
        + "<meta name=\"referrer\" content=\"no-referrer\">\n"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
        + "<title>DiscoScope report</title>\n<style>" + style + "</style>\n</head>\n<body>\n" + body

    /// The data block, opened: the JSON array as text, or compressed (`HTMLReporter`).
    static let openData = "<script type=\"application/json\" id=\"ds-data\">"
    static let openCompressedData =
        "<script type=\"application/octet-stream\" id=\"ds-data\" data-encoding=\"deflate-base64\">\n"

    /// Everything after the data: the block closed, then the page's script.
    static let tail: String = "</script>\n<script>" + script + "</script>\n</body>\n</html>\n"
}
