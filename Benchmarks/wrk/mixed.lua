-- 70% reads (60% GET one, 10% GET a page of 20), 20% writes (10% POST, 10% PATCH),
-- 10% DELETE of a to-do this connection created. TODO_IDS holds seeded ids, comma-separated.
local ids = {}
for id in string.gmatch(os.getenv("TODO_IDS") or "", "[^,]+") do ids[#ids + 1] = id end
local created = {}
-- wrk's own headers (wire/run.sh's -H "Origin: …") plus the body's type: a table given to wrk.format
-- replaces wrk.headers.
local json = { ["Content-Type"] = "application/json" }
for name, value in pairs(wrk.headers) do json[name] = json[name] or value end
local counter = 0

request = function()
  counter = counter + 1
  local slot = counter % 10
  local id = ids[(counter % #ids) + 1]
  if slot < 6 then
    return wrk.format("GET", "/todos/" .. id)
  elseif slot == 6 then
    return wrk.format("GET", "/todos?limit=20")
  elseif slot == 7 then
    return wrk.format("POST", "/todos", json, '{"title":"a thirty character title here!"}')
  elseif slot == 8 then
    return wrk.format("PATCH", "/todos/" .. id, json, '{"completed":true}')
  elseif #created > 0 then
    return wrk.format("DELETE", "/todos/" .. table.remove(created))
  end
  return wrk.format("GET", "/todos/" .. id)
end

response = function(status, headers, body)
  local location = headers["Location"] or headers["location"]
  if status == 201 and location then
    created[#created + 1] = string.match(location, "/todos/([^/]+)$")
  end
end
