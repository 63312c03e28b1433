-- PATCH /todos/{id}, alternating completed; the id comes in the TODO_ID environment variable.
local id = os.getenv("TODO_ID")
local flip = false
-- wrk's own headers (wire/run.sh's -H "Origin: …") plus the body's type: a table given to wrk.format
-- replaces wrk.headers.
local json = { ["Content-Type"] = "application/json" }
for name, value in pairs(wrk.headers) do json[name] = json[name] or value end
request = function()
  flip = not flip
  return wrk.format("PATCH", "/todos/" .. id, json,
    flip and '{"completed":true}' or '{"completed":false}')
end
