-- POST /todos with a 30-character title.
wrk.method = "POST"
wrk.body = '{"title":"a thirty character title here!"}'
wrk.headers["Content-Type"] = "application/json"
