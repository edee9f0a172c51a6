-- load.lua: wrk script of `make bench`. Each thread reads the games file that `load setup`
-- wrote ("ID TOKEN BODY1 BODY2" per line) and goes through the games one after another:
--   wrk ... -s load.lua URL -- GAMES_FILE orders   seat 0's two keep orders in turn (each
--                                                  replaces the other: 202 is success)
--   wrk ... -s load.lua URL -- GAMES_FILE views    GET of each public view (200 is success);
--                                                  the same against bench/hello.c, which
--                                                  answers any path
-- It counts successes and the rest, and prints "RESULT good=N bad=N seconds=S".
local requests, threads = {}, {}
local i, want = 0, 200
good, bad = 0, 0

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  local orders = args[2] == "orders"
  want = orders and 202 or 200
  for line in io.lines(args[1]) do
    local id, token, b1, b2 = line:match("^(%S+) (%S+) (%S+) (%S+)$")
    if id and orders then
      local headers = {["Authorization"] = "Bearer " .. token,
                       ["Content-Type"] = "application/json"}
      local path = "/api/v1/games/" .. id .. "/orders"
      table.insert(requests, wrk.format("POST", path, headers, b1))
      table.insert(requests, wrk.format("POST", path, headers, b2))
    elseif id then
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
  if status == want then good = good + 1 else bad = bad + 1 end
end

function done(summary)
  local g, b = 0, 0
  for _, t in ipairs(threads) do
    g = g + t:get("good")
    b = b + t:get("bad")
  end
  io.write(string.format("RESULT good=%d bad=%d seconds=%.3f\n", g, b, summary.duration / 1e6))
end
