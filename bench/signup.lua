-- wrk: each request a new sign-up, POSTed as the form does. Addresses are unique per
-- thread, request and run (the run's label is wrk's first argument after `--`). With a
-- file of proofs of work (the second argument, one `altcha` payload a line, made by
-- server/examples/proofs.rs) and the thread count (the third), each sign-up carries a
-- proof of its own: thread t takes lines t+1, t+1+threads, ...; once they run out, proofs
-- are used again, and refused (counted as non-2xx).
local threads = 0

function setup(thread)
  thread:set("thread", threads)
  threads = threads + 1
end

function init(args)
  run = args[1] or "run"
  count = 0
  proofs = {}
  if args[2] then
    local every = tonumber(args[3] or "1")
    local n = 0
    for line in io.lines(args[2]) do
      if n % every == thread then
        proofs[#proofs + 1] = line
      end
      n = n + 1
    end
  end
end

function request()
  count = count + 1
  local proof = ""
  if #proofs > 0 then
    proof = string.format(',"altcha":"%s"', proofs[(count - 1) % #proofs + 1])
  end
  local body = string.format(
    '{"name":"Bench","email":"%s.t%d.n%d@example.com","interest":"developer","message":"Measured.","privacyNotice":"bench"%s}',
    run, thread, count, proof)
  return wrk.format("POST", "/api/waitlist", { ["Content-Type"] = "application/json" }, body)
end
