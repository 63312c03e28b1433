-- Soak mix: 55% GET one, 10% GET a page, 15% POST, 10% PATCH, 5% DELETE of a to-do this
-- connection created (so the store grows), 5% a malformed POST body (the one intended non-2xx: 400).
-- TODO_IDS holds seeded ids, comma-separated. done() prints each status with its count.
local ids = {}
for id in string.gmatch(os.getenv("TODO_IDS") or "", "[^,]+") do ids[#ids + 1] = id end
local json = { ["Content-Type"] = "application/json" }
local threads = {}

setup = function(thread) table.insert(threads, thread) end

init = function()
  created = {}
  counter = 0
  statuses = {}
  malformed = 0
end

request = function()
  counter = counter + 1
  local slot = counter % 20
  local id = ids[(counter % #ids) + 1]
  if slot < 11 then
    return wrk.format("GET", "/todos/" .. id)
  elseif slot < 13 then
    return wrk.format("GET", "/todos?limit=20")
  elseif slot < 16 then
    return wrk.format("POST", "/todos", json, '{"title":"soak ' .. counter .. '","order":' .. slot .. '}')
  elseif slot < 18 then
    return wrk.format("PATCH", "/todos/" .. id, json, '{"completed":' .. tostring(counter % 2 == 0) .. '}')
  elseif slot == 18 and #created > 0 then
    return wrk.format("DELETE", "/todos/" .. table.remove(created, 1))
  elseif slot == 19 then
    malformed = malformed + 1
    return wrk.format("POST", "/todos", json, '{"title": "unterminated')
  end
  return wrk.format("GET", "/todos/" .. id)
end

response = function(status, headers, body)
  statuses[status] = (statuses[status] or 0) + 1
  local location = headers["Location"] or headers["location"]
  if status == 201 and location then
    created[#created + 1] = string.match(location, "/todos/([^/]+)$")
  end
end

done = function(summary, latency, requests)
  local totals, sent = {}, 0
  for _, thread in ipairs(threads) do
    for status, count in pairs(thread:get("statuses")) do totals[status] = (totals[status] or 0) + count end
    sent = sent + thread:get("malformed")
  end
  for status, count in pairs(totals) do io.write(string.format("status %d %d\n", status, count)) end
  io.write(string.format("malformed %d\n", sent))
  io.write(string.format("errors %d\n", summary.errors.connect + summary.errors.read + summary.errors.write
    + summary.errors.timeout))
end
