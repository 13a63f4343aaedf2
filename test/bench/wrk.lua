-- test/bench/wrk.lua - the requests of one benchmark target, for wrk.
--
-- Environment:
--   BENCH_PROFILE  get (default): GET the URL as given
--                  join: POST the URL (a queue's join endpoint) with {}
--                  mix: a visitor's requests in the waiting room's
--                       proportion on the queue BENCH_SLUG: a join, then
--                       status polls of the number it got (BENCH_POLLS,
--                       default 8), then a claim of the token with the
--                       join's ticket; every connection of a thread takes
--                       the next request of the thread's cycle
--   BENCH_SLUG     the queue of the mix profile
--
-- At the end, one line per run on stdout:
--   BENCH requests=N seconds=S rps=R p50=US p95=US p99=US errors=E
-- latencies in microseconds; errors count connect, read, write and
-- timeout errors and answers other than 2xx.

local profile = os.getenv("BENCH_PROFILE") or "get"
local slug = os.getenv("BENCH_SLUG") or "bench"
local polls = tonumber(os.getenv("BENCH_POLLS") or "8")
local step = 0
local number, ticket = nil, nil
local json = { ["Content-Type"] = "application/json" }

function request()
	if profile == "join" then
		return wrk.format("POST", nil, json, "{}")
	end
	if profile ~= "mix" then
		return wrk.format("GET")
	end
	local base = "/queue/" .. slug
	local i = step % (polls + 2)
	step = step + 1
	if i == 0 or number == nil then
		return wrk.format("POST", base .. "/join", json, "{}")
	end
	if i <= polls then
		return wrk.format("GET", base .. "/status?number=" .. number)
	end
	return wrk.format("POST", base .. "/token", json,
	    '{"number":' .. number .. ',"ticket":"' .. ticket .. '"}')
end

-- Only the mix reads answers (wrk collects bodies only when this exists).
if profile == "mix" then
	response = function(status, headers, body)
		local n = body:match('"number":(%d+)')
		local t = body:match('"ticket":"([^"]+)"')
		if n ~= nil and t ~= nil then
			number, ticket = n, t
		end
	end
end

function done(summary, latency, requests)
	local e = summary.errors
	local errors = e.connect + e.read + e.write + e.status + e.timeout
	local s = summary.duration / 1e6
	io.write(string.format(
	    "BENCH requests=%d seconds=%.2f rps=%.1f p50=%d p95=%d p99=%d " ..
	    "errors=%d\n", summary.requests, s, summary.requests / s,
	    latency:percentile(50), latency:percentile(95),
	    latency:percentile(99), errors))
end
