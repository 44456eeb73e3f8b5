-- Drives one AutoDD session in headless Neovim 0.7 and writes what happened to a JSON file.
--   AUTODD_LSP_CMD   JSON list: the server command
--   AUTODD_RESULT    where to write the JSON
-- Started as: nvim --headless --clean -n prog.py -c "luafile drive.lua"
local out = { events = {} }
local function note(what) table.insert(out.events, what) end

local function finish()
  vim.fn.writefile({ vim.fn.json_encode(out) }, os.getenv('AUTODD_RESULT'))
  vim.cmd('qa!')
end

local ok, err = pcall(function()
  local source_buf = vim.api.nvim_get_current_buf()
  local default_progress = vim.lsp.handlers['$/progress']
  out.progress = {}
  local client_id = vim.lsp.start_client({
    name = 'autodd',
    cmd = vim.fn.json_decode(os.getenv('AUTODD_LSP_CMD')),
    root_dir = vim.fn.getcwd(),
    settings = { autodd = { backend = 'subproc', timeout = 30 } },
    handlers = {
      -- Answer "which failure should the reduced program keep?" with its first suggestion.
      ['window/showMessageRequest'] = function(_, params)
        out.question = params
        return params.actions[1]
      end,
      ['workspace/executeCommand'] = function(e, result)
        out.command_error = e
        out.command_result = result
      end,
      ['$/progress'] = function(e, params, ctx)
        table.insert(out.progress, params.value.kind)
        return default_progress(e, params, ctx)
      end,
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

  -- 2. Pick "Minimize this failure" from the code actions.
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
  vim.api.nvim_win_set_cursor(0, { 1, 0 })
  vim.lsp.buf.code_action()
  note('code action chosen')

  -- 3. Let the run finish and its edits apply.
  vim.wait(60000, function() return out.command_result ~= nil or out.command_error ~= nil end, 50)
  note('command finished')
  if out.command_result and out.command_result.outputUri then
    local buf = vim.uri_to_bufnr(out.command_result.outputUri)
    vim.fn.bufload(buf)
    out.output_buffer = table.concat(vim.api.nvim_buf_get_lines(buf, 0, -1, false), '\n') .. '\n'
  end
  out.source_buffer = table.concat(vim.api.nvim_buf_get_lines(source_buf, 0, -1, false), '\n') .. '\n'

  vim.lsp.stop_client(client_id)
  vim.wait(5000, function() return vim.lsp.get_client_by_id(client_id) == nil end, 50)
  note('stopped')
end)
if not ok then out.error = tostring(err) end
finish()
