-- orders.lua: wrk script of `make bench`: each thread reads the games file that `load setup`
-- wrote ("ID TOKEN BODY1 BODY2" per line) and submits seat 0's two keep orders in turn, game
-- after game; it counts the replies by status. Use: wrk ... -s orders.lua URL -- GAMES_FILE
local requests, threads = {}, {}
local i = 0
accepted, refused = 0, 0

function setup(thread)
  table.insert(threads, thread)
end

function init(args)
  for line in io.lines(args[1]) do
    local id, token, b1, b2 = line:match("^(%S+) (%S+) (%S+) (%S+)$")
    if id then
      local headers = {["Authorization"] = "Bearer " .. token,
                       ["Content-Type"] = "application/json"}
      local path = "/api/v1/games/" .. id .. "/orders"
      table.insert(requests, wrk.format("POST", path, headers, b1))
      table.insert(requests, wrk.format("POST", path, headers, b2))
    end
  end
  i = math.random(#requests)
end

function request()
  i = i % #requests + 1
  return requests[i]
end

function response(status)
  if status == 202 then accepted = accepted + 1 else refused = refused + 1 end
end

function done(summary)
  local a, r = 0, 0
  for _, t in ipairs(threads) do
    a = a + t:get("accepted")
    r = r + t:get("refused")
  end
  io.write(string.format("RESULT accepted=%d refused=%d seconds=%.3f\n", a, r,
                         summary.duration / 1e6))
end
