-- GET of a list of 20, pipelined 16 deep: each connection sends 16 requests at once and reads 16
-- answers (wrk counts each answer as a request).
init = function(args)
  local requests = {}
  for i = 1, 16 do
    requests[i] = wrk.format("GET", "/todos?limit=20")
  end
  pipelined = table.concat(requests)
end

request = function()
  return pipelined
end
