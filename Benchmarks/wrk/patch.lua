-- PATCH /todos/{id}, alternating completed; the id comes in the TODO_ID environment variable.
local id = os.getenv("TODO_ID")
local flip = false
request = function()
  flip = not flip
  return wrk.format("PATCH", "/todos/" .. id, { ["Content-Type"] = "application/json" },
    flip and '{"completed":true}' or '{"completed":false}')
end
