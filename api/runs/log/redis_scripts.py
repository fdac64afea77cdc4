"""The Lua scripts that change a run in Redis, each one atomic.

Keys of one run (``P`` is the configured prefix): ``P:run:<id>`` a hash (the record, status, session,
``last_seq``, ``trimmed`` and the topology envelope), ``P:run:<id>:events`` the stream of its events, one
entry per commit with id ``<last seq>-0``, ``P:run:<id>:lease`` the instance that may write it, expiring unless
renewed. Besides:
``P:running`` the set of running runs, ``P:session:<id>`` a session's unfinished run, ``P:session:<id>:runs``
every run of the session (for its erasure), ``P:session:<id>:owner`` its owner and ``P:session:<id>:erasing``
its erasure's tombstone, both copies of what PostgreSQL decides (``api.runs.log.session_owners``),
``P:session:<id>:queue`` the session's queued (``pending``) runs, oldest first, and ``P:queued`` the set of
sessions that have some.

Fencing lives here: ``APPEND`` writes nothing unless the caller holds the run's lease and its first event
continues the stream exactly, so two writers can never give two events one seq or leave a gap. A commit's
events of one run are one stream entry (``api.runs.log.redis_entries``); an entry already in the stream with
the same bytes is skipped, which makes a retried batch harmless.
"""

from __future__ import annotations

__all__ = (
    "APPEND",
    "BEGIN",
    "CLAIM",
    "ENQUEUE",
    "HOLD",
    "RELEASE",
    "RENEW",
    "START_QUEUED",
    "STREAM_SLOT",
    "SUBSCRIBERS",
)

BEGIN = """
if redis.call('EXISTS', KEYS[6]) == 1 then return {'erasing'} end
local owner = redis.call('GET', KEYS[5])
if not owner then
  if ARGV[10] ~= '1' then return {'unknown'} end
  owner = ARGV[11]
  redis.call('SET', KEYS[5], owner)
end
if ARGV[8] ~= '1' and owner ~= ARGV[7] and not (owner == '' and ARGV[9] == '1') then return {'foreign'} end
local current = redis.call('GET', KEYS[1])
if current and current ~= ARGV[2] then
  local status = redis.call('HGET', ARGV[1] .. ':run:' .. current, 'status')
  if status == 'running' or status == 'waiting' then return {'busy', current} end
end
local queued = redis.call('LINDEX', KEYS[1] .. ':queue', 0)
if queued and redis.call('HGET', ARGV[1] .. ':run:' .. queued, 'status') == 'pending' then
  return {'busy', queued}
end
redis.call('SET', KEYS[1], ARGV[2])
redis.call('SADD', KEYS[1] .. ':runs', ARGV[2])
redis.call('SET', KEYS[3], ARGV[3], 'PX', ARGV[4])
redis.call('HSET', KEYS[2], 'record', ARGV[5], 'status', 'running', 'session', ARGV[6], 'last_seq', 0, 'trimmed', 1)
redis.call('SADD', KEYS[4], ARGV[2])
return {'begun'}
"""
"""KEYS: session's unfinished run, run, lease, running, session's owner, session's erasure. ARGV: prefix, run id,
lease owner, lease ms, record, session id, the caller's subject ('' when identity is off), '1' when any session
is the caller's, '1' when the sessions of no one (created with identity off) are the caller's, '1' when the next
argument is the session's owner to copy in when the key has none (PostgreSQL's answer, or the caller for a
session the service has just made), that owner. The three flags are ``SessionAccess.may_continue``, which
tests/api/runs/log/test_redis_begin.py holds this script to. Returns ``{'begun'}`` once the run is recorded and
leased, ``{'busy', run_id}`` (the session's unfinished run, or the first of its queued runs), ``{'foreign'}``,
``{'erasing'}`` (the session is being erased: who asks decides 404 or 409), or ``{'unknown'}`` when Redis has no
copy of the owner and none was given: PostgreSQL decides then."""

APPEND = """
if redis.call('GET', KEYS[3]) ~= ARGV[3] then return {'fenced', -1} end
local last = tonumber(redis.call('HGET', KEYS[1], 'last_seq') or '-1')
if last < 0 then return {'fenced', -1} end
local first, final = tonumber(ARGV[9]), tonumber(ARGV[10])
if first > 0 then
  if first <= last then
    if final > last then return {'fenced', last} end
    local kept = redis.call('XRANGE', KEYS[2], final, final)
    if #kept == 0 or kept[1][2][2] ~= ARGV[11] then return {'fenced', last} end
  elseif first ~= last + 1 then
    return {'fenced', last}
  else
    redis.call('XADD', KEYS[2], final .. '-0', 'f', ARGV[11])
    if first == 1 then redis.call('HSET', KEYS[1], 'topology', ARGV[12]) end
    last = final
    redis.call('HSET', KEYS[1], 'last_seq', last)
    local through = math.max(1, last - tonumber(ARGV[4]))
    if through > tonumber(redis.call('HGET', KEYS[1], 'trimmed') or '1') then
      redis.call('XTRIM', KEYS[2], 'MINID', through + 1)
      redis.call('HSET', KEYS[1], 'trimmed', through)
    end
  end
end
if ARGV[6] ~= '' then
  local status = ARGV[7]
  redis.call('HSET', KEYS[1], 'record', ARGV[6], 'status', status)
  if status == 'waiting' then
    redis.call('ZADD', ARGV[1] .. ':waiting', 'NX', ARGV[13], ARGV[2])
  else
    redis.call('ZREM', ARGV[1] .. ':waiting', ARGV[2])
  end
  if status == 'running' then
    redis.call('SADD', KEYS[4], ARGV[2])
  else
    redis.call('SREM', KEYS[4], ARGV[2])
    redis.call('DEL', KEYS[3])
    if status ~= 'waiting' then
      local session = ARGV[1] .. ':session:' .. ARGV[8]
      if redis.call('GET', session) == ARGV[2] then redis.call('DEL', session) end
      redis.call('LREM', session .. ':queue', 0, ARGV[2])
    end
  end
end
return {'ok', last}
"""
"""KEYS: run, events, lease, running. ARGV: prefix, run id, owner, replay window, lease ms, record or '',
status, session id, then the commit's events: the first and last seq (0 and 0 for none), the stream entry
holding them all (``api.runs.log.redis_entries``: its id is the last seq) and the topology envelope (seq 1's,
when the entry holds it), then the record's time (ms) for the ``<prefix>:waiting`` index (oldest first) of
paused runs. Returns ``{'ok', last_seq}``, or ``{'fenced', last_seq}`` when nothing was written because
the caller may no longer write the run.

The entries an ``XTRIM MINID`` leaves are those holding an event above the trim point (``trimmed``): the
first of them may also hold events at or below it, which a read leaves out, so the window stays exact. An
entry already in the stream with the same bytes is a retried commit, skipped."""

ENQUEUE = """
if redis.call('EXISTS', KEYS[4]) == 1 then return 0 end
redis.call('HSET', KEYS[1], 'record', ARGV[2], 'status', 'pending', 'session', ARGV[3], 'last_seq', 0, 'trimmed', 1)
redis.call('RPUSH', KEYS[2], ARGV[1])
redis.call('SADD', KEYS[3], ARGV[3])
redis.call('SADD', KEYS[5], ARGV[1])
return 1
"""
"""KEYS: run, session's queue, queued sessions, session's erasure, session's runs. ARGV: run id, record, session
id. Records a ``pending`` run at the end of its session's queue (no lease: nobody writes it until it starts); 0
when the session is being erased."""

START_QUEUED = """
if redis.call('EXISTS', KEYS[5]) == 1 then return false end
local current = redis.call('GET', KEYS[1])
if current then
  local status = redis.call('HGET', ARGV[1] .. ':run:' .. current, 'status')
  if status == 'running' or status == 'waiting' then return false end
end
while true do
  local head = redis.call('LINDEX', KEYS[2], 0)
  if not head then
    redis.call('SREM', KEYS[3], ARGV[4])
    return false
  end
  local run = ARGV[1] .. ':run:' .. head
  if redis.call('HGET', run, 'status') == 'pending' then
    if not redis.call('SET', run .. ':lease', ARGV[2], 'NX', 'PX', ARGV[3]) then return false end
    redis.call('LPOP', KEYS[2])
    if redis.call('LLEN', KEYS[2]) == 0 then redis.call('SREM', KEYS[3], ARGV[4]) end
    redis.call('SET', KEYS[1], head)
    redis.call('HSET', run, 'status', 'running')
    redis.call('SADD', KEYS[4], head)
    return {head, redis.call('HGET', run, 'record'), redis.call('HGET', run, 'last_seq')}
  end
  redis.call('LPOP', KEYS[2])
end
"""
"""KEYS: session's unfinished run, session's queue, queued sessions, running, session's erasure. ARGV: prefix,
lease owner, lease ms, session id. Unless the session has an unfinished run or is being erased, takes the first
of its queued runs still ``pending`` (those gone or ended meanwhile are dropped): it becomes the session's
running run, leased to the caller, as ``BEGIN`` makes one. Returns ``{run_id, record, last_seq}`` (the record
as it was queued), or nil: nothing to start, or the first run is leased (being cancelled)."""

CLAIM = """
if redis.call('EXISTS', KEYS[2]) == 0 then return false end
if not redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return false end
return redis.call('HMGET', KEYS[2], 'record', 'last_seq')
"""
"""KEYS: lease, run. ARGV: owner, lease ms. The run's record and last seq once leased to ``owner``; nil
when another instance holds it or the run is unknown."""

RELEASE = """
for _, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then redis.call('DEL', key) end
end
return 0
"""
"""KEYS: leases, or erasure tombstones. ARGV: owner. Removes those ``owner`` holds."""

HOLD = """
for i = 1, #KEYS, 2 do
  redis.call('DEL', KEYS[i])
  redis.call('SET', KEYS[i + 1], ARGV[1], 'NX')
end
return 0
"""
"""KEYS: each session's owner and erasure keys. ARGV: the erasure's holder. Marks the sessions as being erased and
drops their owner's copy, so that a turn finds the tombstone, or, should Redis lose it, asks PostgreSQL."""

RENEW = """
local lost = {}
for i, key in ipairs(KEYS) do
  if redis.call('GET', key) == ARGV[1] then
    redis.call('PEXPIRE', key, ARGV[2])
  else
    table.insert(lost, i)
  end
end
return lost
"""
"""KEYS: leases. ARGV: owner, lease ms. The 1-based positions of the leases ``owner`` no longer holds."""

SUBSCRIBERS = """
if ARGV[1] == 'set' then
  redis.call('HSET', KEYS[1], ARGV[2], 0)
  return 1
end
if ARGV[1] == 'del' then
  redis.call('HDEL', KEYS[1], ARGV[2])
  return 0
end
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
local alive = 0
local entries = redis.call('HGETALL', KEYS[1])
for i = 1, #entries, 2 do
  local instance, until_ms = entries[i], tonumber(entries[i + 1]) or 0
  if instance ~= ARGV[2] then
    if until_ms > now_ms or redis.call('EXISTS', ARGV[3] .. ':instance:' .. instance) == 1 then alive = alive + 1 end
  end
end
return alive
"""
"""KEYS: the run's subscriber hash. ARGV: 'set' | 'del' | 'count', instance, the key prefix. Instances register
the streams they hold on a run that executes elsewhere; 'count' answers how many other instances do and are
present (``P:instance:<id>``, which each renews once per maintenance period: nothing per stream). An entry
whose value is a time in ms to come counts until then (entries written before instances kept a presence)."""

STREAM_SLOT = """
local now = redis.call('TIME')
local now_ms = tonumber(now[1]) * 1000 + math.floor(tonumber(now[2]) / 1000)
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now_ms)
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], now_ms + tonumber(ARGV[3]), ARGV[1])
redis.call('PEXPIRE', KEYS[1], ARGV[3])
return 1
"""
"""KEYS: the subject's open streams (a sorted set by expiry). ARGV: the new slot, the limit, its ttl ms.
1 when the slot was taken, 0 when the subject holds its limit of unexpired slots."""
