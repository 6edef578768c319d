#!/usr/bin/env python3
"""Writes the seed corpora of the text harnesses (tests/fuzz/corpus/<harness>/) from the
examples under pipelines/ and the bad inputs the tests and issue 15 name. Re-run after adding
examples; file names are content hashes, so re-running only adds files. The state harness's
binary seeds are written by its own replay binary: fuzz_replay_state --write-seeds DIR."""
import glob, hashlib, json, os, sys

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
out = os.path.join(root, 'tests', 'fuzz', 'corpus')

def put(harness, data):
    if isinstance(data, str):
        data = data.encode('utf-8', 'surrogateescape')
    d = os.path.join(out, harness)
    os.makedirs(d, exist_ok=True)
    name = hashlib.sha1(data).hexdigest()[:16]
    with open(os.path.join(d, name), 'wb') as f:
        f.write(data)

# --- event lines: the examples' data, plus the shapes that matter -------------------------
for path in sorted(glob.glob(os.path.join(root, 'pipelines', '**', '*.jsonl'), recursive=True)):
    with open(path, 'rb') as f:
        for i, line in enumerate(f.read().splitlines()):
            if i < 6:
                put('event_parser', line)
for line in [
    '{"service.name":"api","service":{"version":"1"}}', '{"a.b":1,"a":{"b":2}}', '{"":0,".":1}',
    '{"v":1,"v":2}', '{"a":{"x":1},"a":{"y":2}}', '{"n":12345678901234567891}',
    '{"n":18446744073709551616}', '{"n":-9223372036854775809}', '{"n":1e-400}', '{"n":1e400}',
    '{"n":[1e-400,2.4e-324,12345678901234567891]}', '{"a":tru}', '{"a":1 "b":2}',
    '{"a":01}', '{"a":"x\\q"}', '{"a":1}x', '{"a":1,}', '[1,2]', '42', '"s"', '{"a":',
    "{'a':1}", '{"a":1}}', 'not json', '', '   ', '{}', '{"a":{}}', '{"":{}}', '{"":{"":1}}',
    '{"`q`":1,"a":{"b.c":[1,{"d.e":2}],"c`d":"e"}}', '{"k8s.io/name":"web"}',
    '{"e":"\\u00e9\\ud83d\\ude00\\u0000","\\u0001":1}', '{"lone":"\\ud800"}',
    '{"t":1700000000000,"user":{"id":7,"name":"ann"},"ok":true,"x":null}',
    '{"d":-0,"e":-0.0,"f":1E2,"g":1.5e+3}', '{"deep":' + '{"a":' * 20 + '1' + '}' * 21,
    '{"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":1,"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa":2}',
    # The harness's projection (t, a.b, k, `x.y`): kept, under, on the way to, beside them.
    '{"z":0,"t":5,"a":{"b":2,"c":3},"k":"x","tt":1}', '{"a":5,"t":{"x":1,"y":{}},"k":null}',
    '{"a":{},"x":{"y":1},"k":{"q":[1]},"t":"noon"}', '{"a":{"b":{"c":1,"d":"e"}},"ab":1,"t":-3}',
]:
    put('event_parser', line)
put('event_parser', b'{"x":"\xff\xfe"}')
put('event_parser', b'{"x":"\xc3\xa9","\xe2\x82\xac":1}')
put('event_parser', b'\xef\xbb\xbf{"bom":1}')

# --- CSV ---------------------------------------------------------------------------------
for path in sorted(glob.glob(os.path.join(root, 'pipelines', '**', '*.csv'), recursive=True)):
    with open(path, 'rb') as f:
        put('csv', b'\n'.join(f.read().splitlines()[:8]) + b'\n')
for text in [
    'a.b,a\n1,2\n', 'id,zip,code,price\n007,02134,+5,1.50\n',
    '\ufeffid,name\n1,x\n', 'id,note\n1,"line one\nline two"\n2,"a,""b"""\n',
    'a,b\n1,"open\n', 'v,v\n1,2\n', 'n\n12345678901234567891\n123456789012345678901234\n',
    'x\n0.1000000000000000055511151231257827\n1e3\n-0\n-0.0\n1e-400\ntrue\nfalse\n\n',
    'a,,b\n1,,2\n,,\n', '"q""x",`b`,c.d\n1,2,3\n',
]:
    put('csv', text)
put('csv', b'a\n\xff\n')

# --- pipeline files ----------------------------------------------------------------------
for path in sorted(glob.glob(os.path.join(root, 'pipelines', '**', '*.json'), recursive=True)
                   + glob.glob(os.path.join(root, 'tests', 'live', 'pipelines', '**', '*.json'),
                               recursive=True)):
    with open(path, 'rb') as f:
        put('pipeline', f.read())
minimal = '{"format":"tideline/1","nodes":[{"id":"g","kind":"source.generator","params":{"count":%s}},{"id":"o","kind":"sink.discard","params":{}}],"edges":[{"from":"g.out","to":"o.in"}]}'
for n in ['10', '1e400', '44E444', '1e-400', '123456789012345678901234', '18446744073709551615', '-0']:
    put('pipeline', minimal % n)
# settings.semantics and the modes' blocks (docs/reference/semantics.md), good and bad shapes
mode = ('{"format":"tideline/1","settings":%s,"nodes":[{"id":"s","kind":"source.generator","params":{"count":5}},'
        '{"id":"w","kind":"watermark","params":{"time_field":"event_time","max_out_of_orderness_ms":5}},'
        '{"id":"x","kind":"window","params":{"type":%s,"size_ms":10,"gap_ms":3,"aggregates":[{"op":"count"}]}},'
        '{"id":"d","kind":"dedup","params":{"key":["event_id"],"within_ms":5}},'
        '{"id":"o","kind":"sink.discard","params":{}}],"edges":[{"from":"s.out","to":"w.in"},'
        '{"from":"w.out","to":"x.in"},{"from":"x.out","to":"o.in"},{"from":"x.late","to":"o.in"},'
        '{"from":"w.out","to":"d.in"},{"from":"d.out","to":"o.in"}]}')
for settings, wtype in [
        ('{"semantics":"spark","spark":{"trigger_records":3,"batch_field":"partition","output_mode":"update","watermark_policy":"max"}}', '"tumbling"'),
        ('{"semantics":"spark","spark":{"output_mode":"update"}}', '"session"'),
        ('{"semantics":"kafka-streams","kafka_streams":{"emit":"on_close"}}', '"sliding"'),
        ('{"semantics":"kafka-streams","state":"rocksdb","checkpoint":{"interval_ms":5,"dir":"c"}}', '"session"'),
        ('{"semantics":7,"spark":[],"kafka_streams":{"emit":1,"x":2}}', '5'),
        ('{"semantics":"spark","spark":{"trigger_records":1.5,"batch_field":"","output_mode":3,"watermark_policy":null}}', 'null'),
        ('{"semantics":"kafka-streams","spark":{"trigger_records":18446744073709551615}}', '"sliding"')]:
    put('pipeline', mode % (settings, wtype))
put('pipeline', '{"format":"tideline/1","ui":{"zoom":[1, 2, 1e999]},"nodes":[]}')
put('pipeline', '[' * 70 + ']' * 70)
put('pipeline', '{"format":"tideline/1","nodes":[{"id":"f","kind":"filter","params":{"expr":"%s"}}]}'
    % ('(' * 300 + 'value' + ')' * 300))

# --- expressions -------------------------------------------------------------------------
exprs = set()
for path in sorted(glob.glob(os.path.join(root, 'pipelines', '**', '*.json'), recursive=True)):
    try:
        spec = json.load(open(path))
    except Exception:
        continue
    for n in spec.get('nodes', []):
        p = n.get('params', {})
        if isinstance(p.get('expr'), str):
            exprs.add(p['expr'])
        if isinstance(p.get('set'), dict):
            exprs.update(v for v in p['set'].values() if isinstance(v, str))
exprs.update([
    'value > 10 and lower(country) in [\'de\', \'fr\']', '`service.name` == \'api\'',
    'resource.`service.name` != null', 'a.b + 1', '`a``b` or not t', 'coalesce(n, a, 0) * 2',
    'len(s) % 3 == 0', 'abs(-9223372036854775808)', 'a / 0', '9223372036854775807 + 1',
    "upper('x') + 'y' <> s", 'x not in [1, 2, 3]', '1e400', '1e-400', '99999999999999999999',
    '((a))', 'not not t', '- - 1', '`unclosed', 'a.', 'a..b', '(' * 300 + 'a' + ')' * 300,
    'a < b < c', "'it''s'", '"dq\\"x"',
])
for e in sorted(exprs):
    put('expression', e)
put('expression', b'a + b > 0\x00{"a":9223372036854775807,"b":1}')
put('expression', b's + t\x00{"s":"x","t":"y"}')

# --- times -------------------------------------------------------------------------------
for t in ['2024-03-01T12:00:00Z', '2024-03-01T13:00:00.250+01:00', '2024-03-01 12:00:01',
          '2023-02-30T00:00:00Z', '2024-02-29', '2023-02-29', '9999-12-31T23:59:60Z',
          '0000-01-01T00:00:00Z', '2024-01-01T00:00:00+24:00', '2024-01-01T00:00:00-05',
          '1700000000000', '1700000000.5', '9300000000000000', '-9300000000000000',
          '9223372036854775807', '99999999999999999999', '1e300', 'yesterday', '']:
    put('time', t)

# --- recordings: tideline-recording/2 blocks (the /1 line seeds came from fuzzing runs) ----
def crc32c(data):
    crc = 0xFFFFFFFF
    for b in data:
        crc ^= b
        for _ in range(8):
            crc = (crc >> 1) ^ 0x82F63B78 if crc & 1 else crc >> 1
    return crc ^ 0xFFFFFFFF

def block(kind, at, source, payload, count, partition=b'\\N', offset=b'\\N'):
    rest = b'\t'.join([kind, str(at).encode(), source, str(count).encode(),
                       str(len(payload)).encode(), partition, offset,
                       b'%08x' % crc32c(payload)])
    return b'#%08x\t' % crc32c(rest) + rest + b'\n' + payload

raw = block(b'R', 17, b'clicks', b'{"user":"u1","ts":3}\n\n{"user": broken\n', 3, offset=b'5')
cols = block(b'C', 40, b'orders', b'3\t9000000000\t-5\tk\\tey\t' b'trace\\=a\\;bin\\=\\x00\t{"v":1}\n'
             b'0\t\\N\t\\N\t\\N\t\\N\t\\N\n', 2)
end = block(b'E', 41, b'orders', b'', 0)
gen = block(b'R', 0, b'gen', b'{"event_id":1,"user_id":"u3"}\n{"event_id":2,"user_id":"u1"}\n', 2,
            partition=b'2')
for seed in [raw, cols, end, gen, raw + cols + end, raw + gen, raw[:len(raw) - 5],
             cols[:30], raw.replace(b'broken', b'brokem'), b'#00000000\tR\t0\tx\t1\t1\t\\N\t\\N\t00000000\n\n']:
    put('recording', seed)
