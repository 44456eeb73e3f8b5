import sys as _sys


class ArgumentError(Exception):
    def __init__(self, argument, message):
        self.argument_name = '/'.join(argument.option_strings)
        self.message = message

    def __str__(self):
        format = 'argument %(argument_name)s: %(message)s'
        return format % dict(message=self.message, argument_name=self.argument_name)


class Action:
    def __init__(self, option_strings, choices=None):
        self.option_strings = option_strings
        self.choices = choices


class _SubParsersAction:
    def __init__(self, prog, parser_class):
        self._prog_prefix = prog
        self._parser_class = parser_class
        self._name_parser_map = {}

    def add_parser(self, name):
        parser = self._parser_class(prog='%s %s' % (self._prog_prefix, name))
        self._name_parser_map[name] = parser
        return parser

    def __call__(self, parser, values):
        parser_name = values[0]
        arg_strings = values[1:]
        parser = self._name_parser_map[parser_name]
        parser.parse_known_args(arg_strings)


class ArgumentParser:
    def __init__(self, prog=None):
        self.prog = prog
        self._positionals = []
        self._option_string_actions = {}

    def add_argument(self, option_string, choices=None):
        action = Action([option_string], choices)
        self._option_string_actions[option_string] = action
        return action

    def add_subparsers(self):
        action = _SubParsersAction(prog=self.prog, parser_class=type(self))
        self._positionals.append(action)
        return action

    def parse_args(self, args):
        return self.parse_known_args(args)

    def parse_known_args(self, args):
        try:
            self._parse_known_args(args)
        except ArgumentError as err:
            self.error(str(err))

    def _parse_known_args(self, arg_strings):
        if arg_strings[0] in self._option_string_actions:
            action = self._option_string_actions[arg_strings[0]]
            self._check_value(action, arg_strings[1])
        else:
            self._positionals[0](self, arg_strings)

    def _check_value(self, action, value):
        if action.choices is not None and value not in action.choices:
            args = {'value': value, 'choices': ', '.join(map(repr, action.choices))}
            msg = 'invalid choice: %(value)r (choose from %(choices)s)'
            raise ArgumentError(action, msg % args)

    def error(self, message):
        args = {'prog': self.prog, 'message': message}
        _sys.stderr.write('%(prog)s: error: %(message)s\n' % args)
        _sys.exit(2)


parser = ArgumentParser(prog="deploy")
commands = parser.add_subparsers()
push = commands.add_parser("push")
push.add_argument("--target", choices=["staging", "prod"])
parser.parse_args(["push", "--target", "qa"])
