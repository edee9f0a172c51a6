-- views.lua: wrk script of `make bench`: each thread reads the games file that `load setup`
-- wrote and GETs the public view of one game after another; it counts 200s and the rest. The
-- same script loads the minimal libmicrohttpd daemon (bench/hello.c), which answers any path.
-- Use: wrk ... -s views.lua URL -- GAMES_FILE
local requests, threads = {}, {}
local i = 0
ok, other = 0, 0

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(args[1]) do
    local id = line:match("^(%S+) ")
    if id then
      table.insert(requests, wrk.format("GET", "/api/v1/games/" .. id))
    end
  end
  i = math.random(#requests)
end

function request()
  i = i % #requests + 1
  return requests[i]
end

function response(status)
  if status == 200 then ok = ok + 1 else other = other + 1 end
end

function done(summary)
  local a, r = 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("ok")
    r = r + t:get("other")
  end
  io.write(string.format("RESULT ok=%d other=%d seconds=%.3f\n", a, r, summary.duration / 1e6))
end
