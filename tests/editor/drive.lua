-- Drives AutoDD sessions in headless Neovim 0.7 and writes what happened to a JSON file.
--   AUTODD_LSP_CMD   JSON list: the server command
--   AUTODD_RESULT    where to write the JSON
-- Started as: nvim --headless --clean -n prog.py -c "luafile drive.lua"  (slow.py beside prog.py)
-- 1. the freeze diagnostic; 2. the Minimize code action, the server's question answered in Neovim's
-- own prompt (inputlist), the run to its end; 3. a second run cancelled from its progress token.
local out = { events = {}, progress = {}, run_progress = 0, finished = {}, replies = {} }
local function note(what) table.insert(out.events, what) end

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv('AUTODD_RESULT'))
  vim.cmd('qa!')
end

local function buffer_text(uri)
  local buf = vim.uri_to_bufnr(uri)
  vim.fn.bufload(buf)
  return table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
end

local ok, err = pcall(function()
  local source_buf = vim.api.nvim_get_current_buf()
  local default_progress = vim.lsp.handlers['$/progress']
  local default_execute = vim.lsp.handlers['workspace/executeCommand']
  local client_id = vim.lsp.start_client({
    name = 'autodd',
    cmd = vim.fn.json_decode(os.getenv('AUTODD_LSP_CMD')),
    root_dir = vim.fn.getcwd(),
    settings = { autodd = { backend = 'subproc', timeout = 30 } },
    handlers = {
      ['workspace/executeCommand'] = function(e, result, ctx, config)
        table.insert(out.replies, e and { error = e.message } or result)
        if default_execute then return default_execute(e, result, ctx, config) end
      end,
      ['$/progress'] = function(e, params, ctx)
        table.insert(out.progress, { token = params.token, kind = params.value.kind })
        return default_progress(e, params, ctx)
      end,
      ['autodd/progress'] = function(_, params)
        out.run_progress = out.run_progress + 1
        out.last_run_progress = params
      end,
      ['autodd/finished'] = function(_, params) out.finished[params.runId] = params end,
      ['window/showMessage'] = function(_, params)
        out.messages = out.messages or {}
        table.insert(out.messages, params.message)
      end,
    },
  })
  vim.lsp.buf_attach_client(source_buf, client_id)

  -- 1. The freeze diagnostic appears.
  vim.wait(20000, function() return #vim.diagnostic.get(source_buf) > 0 end, 50)
  out.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(source_buf)) do
    table.insert(out.diagnostics, { lnum = d.lnum, col = d.col, severity = d.severity, source = d.source, message = d.message })
  end
  note('diagnostics')

  -- The person fixes the flagged annotation and saves: a mistyped marker stops a run before
  -- anything runs, in the editor as on the command line.
  vim.api.nvim_buf_set_lines(source_buf, 3, 4, false, { 'scale = 3  # autodd: freeze' })
  vim.cmd('write')
  vim.wait(20000, function() return #vim.diagnostic.get(source_buf) == 0 end, 50)
  note('annotation fixed')

  -- 2. Pick "Minimize this failure" from the code actions (vim.ui.select is where the person picks).
  vim.ui.select = function(items, opts, on_choice)
    out.code_actions = {}
    local chosen
    for i, item in ipairs(items) do
      local title = opts.format_item and opts.format_item(item) or tostring(item)
      table.insert(out.code_actions, title)
      if title:find('Minimize') then chosen = i end
    end
    on_choice(items[chosen], chosen)
  end
  -- Neovim's own showMessageRequest handler asks with inputlist(); the person types "1".
  vim.fn.inputlist = function(lines)
    out.question = lines
    return 1
  end
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.buf.code_action()
  note('code action chosen')

  vim.wait(60000, function() return #out.replies > 0 end, 50)
  local first = out.replies[1] or {}
  vim.wait(60000, function() return first.runId ~= nil and out.finished[first.runId] ~= nil end, 50)
  note('first run finished')
  out.first = out.finished[first.runId or ''] or {}
  if out.first.outputUri then out.output_buffer = buffer_text(out.first.outputUri) end
  out.source_buffer = table.concat(vim.api.nvim_buf_get_lines(source_buf, 0, -1, false), '\n') .. '\n'

  -- 3. A long run, stopped with the progress bar's cancel (the token's window/workDoneProgress/cancel).
  vim.cmd('edit slow.py')
  local slow_buf = vim.api.nvim_get_current_buf()
  vim.lsp.buf_attach_client(slow_buf, client_id)
  local seen = #out.progress
  vim.lsp.buf_request(slow_buf, 'workspace/executeCommand', {
    command = 'autodd.minimize',
    arguments = { { uri = vim.uri_from_bufnr(slow_buf), errMsg = 'slow-sentinel' } },
  })
  vim.wait(20000, function() return #out.replies > 1 end, 50)
  local second = out.replies[2] or {}
  local token
  vim.wait(30000, function()
    for i = seen + 1, #out.progress do
      if out.progress[i].kind == 'report' then token = out.progress[i].token end
    end
    return token ~= nil
  end, 50)
  -- Let it shrink first (an edit lands in the buffer), however busy the machine is.
  vim.wait(60000, function()
    local p = out.last_run_progress
    return p ~= nil and p.runId == second.runId and p.size.nodes < p.original.nodes
  end, 50)
  vim.lsp.get_client_by_id(client_id).notify('window/workDoneProgress/cancel', { token = token })
  note('cancel sent')
  vim.wait(30000, function() return second.runId ~= nil and out.finished[second.runId] ~= nil end, 50)
  out.second = out.finished[second.runId or ''] or {}
  if out.second.outputUri then out.slow_output_buffer = buffer_text(out.second.outputUri) end
  note('second run finished')

  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  note('stopped')
end)
if not ok then out.error = tostring(err) end
finish()
