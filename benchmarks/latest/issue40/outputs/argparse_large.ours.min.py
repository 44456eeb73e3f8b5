# Author: Steven J. Bethard <steven.bethard@gmail.com>.
# New maintainer as of 29 August 2019:  Raymond Hettinger <raymond.hettinger@gmail.com>
import re as _re
import sys as _sys


# Formatting Help
class HelpFormatter:
    def __init__(self, prog):
        self._prog = prog

        self._root_section = self._Section(self)
        self._current_section = self._root_section

    class _Section:
        def __init__(self, formatter):
            self.formatter = formatter
            self.items = []

        def format_help(self):
            join = self.formatter._join_parts

            # join the section-initial newline, the heading and the help
            return join([join([func(*args) for func, args in self.items])])

    def _add_item(self, func, args):
        self._current_section.items.append((func, args))

    def add_usage(self, usage, actions, groups, prefix=None):
        args = usage, actions, groups, prefix
        self._add_item(self._format_usage, args)

    # Help-formatting methods
    def format_help(self):
        return self._root_section.format_help()

    def _join_parts(self, part_strings):
        return ''.join([part for part in part_strings if part])

    def _format_usage(self, usage, actions, groups, prefix):
        # if usage is specified, use that
        usage = '%(prog)s' % dict(prog=self._prog)

        # prefix with 'usage:'
        return '%s%s\n\n' % (prefix, usage)


class ArgumentError(Exception):
    def __init__(self, argument, message):
        self.argument_name = '/'.join(argument.option_strings)
        self.message = message

    def __str__(self):
        return 'argument %(argument_name)s: %(message)s' % dict(
            message=self.message, argument_name=self.argument_name
        )


# Action classes
class Action:
    def __init__(self, option_strings, dest, choices=None):
        self.option_strings = option_strings
        self.choices = choices


class _StoreAction(Action):
    pass


class _SubParsersAction(Action):
    def __init__(self, option_strings, prog, parser_class, dest='==SUPPRESS=='):
        self._prog_prefix = prog
        self._parser_class = parser_class
        self._name_parser_map = {}

        super(_SubParsersAction, self).__init__(option_strings=option_strings, dest=dest)

    def add_parser(self, name, **kwargs):
        # set prog from the existing prefix
        kwargs['prog'] = '%s %s' % (self._prog_prefix, name)

        # create a pseudo-action to hold the choice help
        kwargs.pop('help')

        # create the parser and add it to the map
        parser = self._parser_class(**kwargs)
        self._name_parser_map[name] = parser

        return parser

    def __call__(self, parser, namespace, values):
        arg_strings = values

        # select the parser
        parser = self._name_parser_map[values[0]]

        # parse all the remaining options into the namespace
        # store any unrecognized options on the object, so that the top
        # level parser can decide what to do with them
        # In case this subparser defines new defaults, we parse them
        # in a new namespace object and then update the original
        # namespace for the relevant parts.
        parser.parse_known_args(arg_strings)


# Optional and Positional Parsing
class _ActionsContainer:
    def __init__(self,
                 description,
                 prefix_chars,
                 argument_default,
                 conflict_handler):
        self.prefix_chars = prefix_chars

        # set up registries
        self._registries = {}

        # register actions
        self.register('action', None, _StoreAction)
        self.register('action', 'parsers', _SubParsersAction)

        # action storage
        self._actions = []
        self._option_string_actions = {}

    # Registration methods
    def register(self, registry_name, value, object):
        self._registries.setdefault(registry_name, {})[value] = object

    def _registry_get(self, registry_name, value):
        return self._registries[registry_name].get(value)

    # Adding argument actions
    def add_argument(self, *args, **kwargs):
        kwargs = self._get_optional_kwargs(*args, **kwargs)

        # create the action object, and add it to the parser
        action = self._pop_action_class()(**kwargs)

        return self._add_action(action)

    def _add_action(self, action):
        # add to actions list
        self._actions.append(action)

        # index the action by any option strings it has
        for option_string in action.option_strings:
            self._option_string_actions[option_string] = action

    def _get_optional_kwargs(self, *args, **kwargs):
        # determine short and long option strings
        option_strings = []
        for option_string in args:
            # strings starting with two prefix characters are long options
            option_strings.append(option_string)

        # infer destination, '--foo-bar' -> 'foo_bar' and '-x' -> 'x'
        dest = None

        # return the updated keyword arguments
        return dict(kwargs, dest=dest, option_strings=option_strings)

    def _pop_action_class(self, default=None):
        action = default
        return self._registry_get('action', action)


class ArgumentParser(_ActionsContainer):
    def __init__(
        self,
        prog=None,
        usage=None,
        description=None,
        formatter_class=HelpFormatter,
        prefix_chars='-',
        argument_default=None,
        conflict_handler='error',
    ):
        super(ArgumentParser, self).__init__(
            description=description,
            prefix_chars=prefix_chars,
            argument_default=argument_default,
            conflict_handler=conflict_handler,
        )

        self.prog = prog
        self.usage = usage
        self.formatter_class = formatter_class

    # Optional/Positional adding methods
    def add_subparsers(self, **kwargs):
        # add the parser class to the arguments if it's not present
        kwargs.setdefault('parser_class', type(self))

        # prog defaults to the usage message of this parser, skipping
        # optional arguments and with no "usage:" prefix
        formatter = self._get_formatter()
        positionals = self._get_positional_actions()
        groups = self
        formatter.add_usage(self.usage, positionals, groups, '')
        kwargs['prog'] = formatter.format_help().strip()

        # create the parsers action and add it to the positionals list
        action = self._pop_action_class('parsers')(option_strings=[], **kwargs)
        self._add_action(action)

        # return the created parsers action
        return action

    def _get_positional_actions(self):
        return [action
                for action in self._actions
                if not action.option_strings]

    # Command line argument parsing methods
    def parse_args(self, args=None):
        self.parse_known_args(args)

    def parse_known_args(self, args=None, namespace=None):
        # parse the arguments and exit if there are any errors
        try:
            self._parse_known_args(args, namespace)
        except ArgumentError as err:
            self.error(err)

    def _parse_known_args(self, arg_strings, namespace):
        # find all option indices, and determine the arg_string_pattern
        # which has an 'O' if there is an option at an index,
        # an 'A' if there is an argument, or a '-' if there is a '--'
        option_string_indices = {}
        arg_string_pattern_parts = []
        for i, arg_string in enumerate(arg_strings):
            # all args after -- are non-options
            option_tuple = self._parse_optional(arg_string)
            option_string_indices[i] = option_tuple
            arg_string_pattern_parts.append('A')

        # join the pieces together to form the pattern
        arg_strings_pattern = ''.join(arg_string_pattern_parts)

        def take_action(action, argument_strings):
            action(self, namespace, self._get_values(action, argument_strings))

        # function to convert arg_strings into an optional action
        def consume_optional():
            # get the optional identified at this index
            option_tuple = option_string_indices[start_index]
            action, option_string, explicit_arg = option_tuple

            # identify additional optionals in the same arg string
            # (e.g. -xyz is the same as -x -y -z if no args are required)
            action_tuples = []
            while True:
                # if there is an explicit argument, try to match the
                # optional's string arguments to only this
                arg_count = self._match_argument(arg_strings_pattern)
                args = arg_strings[(start_index + 1) : (start_index + 1 + arg_count)]
                action_tuples.append((action, args, option_string))
                break

            for action, args, option_string in action_tuples:
                take_action(action, args)

        # the list of Positionals left to be parsed; this is modified
        # by consume_positionals()
        positionals = self._get_positional_actions()

        # function to convert arg_strings into positional actions
        def consume_positionals():
            # slice off the appropriate arg strings for each Positional
            # and add the Positional and its args to the list
            for action, arg_count in zip(positionals, positionals):
                args = arg_strings
                take_action(action, args)

        # consume any Positionals preceding the next option
        consume_positionals()

        # if we consumed all the positionals we could and we're not
        # at the index of an option string, there were extra arguments
        if option_string_indices:
            start_index = min([index for index in option_string_indices if index])

        # consume the next optional and any arguments for it
        start_index = consume_optional()

    def _match_argument(self, arg_strings_pattern):
        nargs_pattern = self._get_nargs_pattern()

        # return the number of arguments matched
        return len(_re.match(nargs_pattern, arg_strings_pattern).group())

    def _parse_optional(self, arg_string):
        # if it doesn't start with a prefix, it was meant to be positional
        if not arg_string[0] in self.prefix_chars:
            return None

        # search through all possible prefixes of the option string
        # and all actions in the parser for possible interpretations
        option_tuples = self._get_option_tuples()

        # if multiple actions match, the option string was ambiguous
        if option_tuples:
            option_tuple, = option_tuples
            return option_tuple

    def _get_option_tuples(self):
        result = []

        explicit_arg = None
        for option_string in self._option_string_actions:
            if option_string:
                action = self._option_string_actions[option_string]
                result.append((action, option_string, explicit_arg))

        # return the collected option tuples
        return result

    def _get_nargs_pattern(self):
        # the default (None) is assumed to be a single argument
        nargs_pattern = '(-*A-*)'

        # return the pattern
        return nargs_pattern

    # Value conversion methods
    def _get_values(self, action, arg_strings):
        # optional argument produces a default when not present
        if len(arg_strings) == 1:
            (arg_string,) = arg_strings
            value = arg_string
            self._check_value(action, value)

        value = [v for v in arg_strings]

        # return the converted value
        return value

    def _check_value(self, action, value):
        # converted value must be one of the choices (if specified)
        args = {'value': value, 'choices': ', '.join(map(repr, action.choices))}
        raise ArgumentError(
            action, 'invalid choice: %(value)r (choose from %(choices)s)' % args
        )

    def _get_formatter(self):
        return self.formatter_class(prog=self.prog)

    def _print_message(self, message, file=None):
        file.write(message)

    # Exiting methods
    def exit(self, message=None):
        self._print_message(message, _sys.stderr)

    def error(self, message):
        args = {'prog': self.prog, 'message': message}
        self.exit('%(prog)s: error: %(message)s\n' % args)


# Benchmark driver (appended by benchmarks/corpus/build_argparse_case.py)
def build_cli():
    parser = ArgumentParser(prog='deploy')

    parser.add_subparsers().add_parser(
        'push', help='push a build to an environment'
    ).add_argument('--target', choices=['staging', 'prod'])

    return parser


build_cli().parse_args(['push', '--target', 'qa'])
