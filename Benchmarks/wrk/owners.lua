-- postgres-peer.sh's OWNERS mode: one of its workloads (WORKLOAD: list20, get-one, patch, post) with
-- an owner's bearer token on every request, rotating over the owners request by request (owner 1,
-- 2, …, N, 1, …, whichever connection sends it). OWNER_TOKENS holds the tokens and OWNER_IDS one
-- to-do id per owner, of that owner's, in the same order, comma-separated: GET one and PATCH ask for
-- the caller's own to-do. PATCH alternates completed per owner, so every PATCH changes its row, as
-- patch.lua's does. The requests are formatted once, in init, so the rotation costs wrk no more Lua than
-- a token lookup. Appended to report.lua.
local workload = os.getenv("WORKLOAD")
local tokens, ids = {}, {}
for token in string.gmatch(os.getenv("OWNER_TOKENS") or "", "[^,]+") do tokens[#tokens + 1] = token end
for id in string.gmatch(os.getenv("OWNER_IDS") or "", "[^,]+") do ids[#ids + 1] = id end
assert(#tokens > 0, "OWNER_TOKENS is empty")
assert(workload == "list20" or workload == "post" or #ids == #tokens, "OWNER_IDS needs one id per token")

-- wrk's own headers (postgres-peer.sh's -H "Origin: …"), the owner's token and, with a body, its
-- type: a fresh table per request, since wrk.format adds Host and Content-Length to the one it gets.
local function headers(token, json)
  local h = { ["Authorization"] = "Bearer " .. token }
  if json then h["Content-Type"] = "application/json" end
  for name, value in pairs(wrk.headers) do h[name] = h[name] or value end
  return h
end

-- Formatted in init: wrk sets the Host header (wrk.headers["Host"]) just before it calls init.
local requests, unset = {}, {}
init = function(args)
  for i, token in ipairs(tokens) do
    if workload == "list20" then
      requests[i] = wrk.format("GET", "/todos", headers(token))
    elseif workload == "get-one" then
      requests[i] = wrk.format("GET", "/todos/" .. ids[i], headers(token))
    elseif workload == "patch" then
      requests[i] = wrk.format("PATCH", "/todos/" .. ids[i], headers(token, true), '{"completed":true}')
      unset[i] = wrk.format("PATCH", "/todos/" .. ids[i], headers(token, true), '{"completed":false}')
    elseif workload == "post" then
      requests[i] = wrk.format("POST", "/todos", headers(token, true), '{"title":"a thirty character title here!"}')
    else
      error("unknown WORKLOAD " .. tostring(workload))
    end
  end
end

local count, flips, turn = #tokens, {}, 0
request = function()
  turn = turn % count + 1
  if workload == "patch" then
    flips[turn] = not flips[turn]
    return flips[turn] and requests[turn] or unset[turn]
  end
  return requests[turn]
end
