-- wrk: each request a new sign-up, POSTed as the form does. Addresses are unique per
-- thread, request and run (the run's label is wrk's first argument after `--`).
local threads = 0

function setup(thread)
  thread:set("thread", threads)
  threads = threads + 1
end

function init(args)
  run = args[1] or "run"
  count = 0
end

function request()
  count = count + 1
  local body = string.format(
    '{"name":"Bench","email":"%s.t%d.n%d@example.com","interest":"developer","message":"Measured.","privacyNotice":"bench"}',
    run, thread, count)
  return wrk.format("POST", "/api/waitlist", { ["Content-Type"] = "application/json" }, body)
end
