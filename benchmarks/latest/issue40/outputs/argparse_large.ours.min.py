# Author: Steven J. Bethard <steven.bethard@gmail.com>.
# New maintainer as of 29 August 2019:  Raymond Hettinger <raymond.hettinger@gmail.com>
import re as _re
import sys as _sys


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


# Optional and Positional Parsing
class _ActionsContainer:
    def __init__(self,
                 description,
                 prefix_chars,
                 argument_default,
                 conflict_handler):
        # set up registries
        self._registries = {}

        # register actions
        self.register('action', None, _StoreAction)

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
        description=None,
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

    def parse_known_args(self, args=None):
        # parse the arguments and exit if there are any errors
        try:
            self._parse_known_args(args)
        except ArgumentError as err:
            self.error(err)

    def _parse_known_args(self, arg_strings):
        # find all option indices, and determine the arg_string_pattern
        # which has an 'O' if there is an option at an index,
        # an 'A' if there is an argument, or a '-' if there is a '--'
        option_string_indices = {}
        arg_string_pattern_parts = []
        for i, arg_string in enumerate(arg_strings):
            # all args after -- are non-options
            option_tuple = self._parse_optional()
            option_string_indices[i] = option_tuple
            arg_string_pattern_parts.append('A')

        # join the pieces together to form the pattern
        arg_strings_pattern = ''.join(arg_string_pattern_parts)

        def take_action(action, argument_strings):
            self._get_values(action, argument_strings)

        # function to convert arg_strings into an optional action
        def consume_optional():
            action, option_string, explicit_arg = option_tuple

            # identify additional optionals in the same arg string
            # (e.g. -xyz is the same as -x -y -z if no args are required)
            action_tuples = []
            while True:
                # if there is an explicit argument, try to match the
                # optional's string arguments to only this
                args = arg_strings[
                    (start_index + 1) : (
                        start_index + 1 + self._match_argument(arg_strings_pattern)
                    )
                ]
                action_tuples.append((action, args, option_string))
                break

            for action, args, option_string in action_tuples:
                take_action(action, args)

        # consume any Positionals preceding the next option
        # if we consumed all the positionals we could and we're not
        # at the index of an option string, there were extra arguments
        if option_string_indices:
            start_index = min([index for index in option_string_indices if index])

        # consume the next optional and any arguments for it
        consume_optional()

    def _match_argument(self, arg_strings_pattern):
        nargs_pattern = self._get_nargs_pattern()

        # return the number of arguments matched
        return len(_re.match(nargs_pattern, arg_strings_pattern).group())

    def _parse_optional(self):
        # if multiple actions match, the option string was ambiguous
        (option_tuple,) = self._get_option_tuples()
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
        # single argument or optional argument produces a single value
        (arg_string,) = arg_strings
        value = arg_string
        self._check_value(action, value)

    def _check_value(self, action, value):
        # converted value must be one of the choices (if specified)
        args = {'value': value, 'choices': ', '.join(map(repr, action.choices))}
        raise ArgumentError(
            action, 'invalid choice: %(value)r (choose from %(choices)s)' % args
        )

    def _print_message(self, message, file=None):
        file.write(message)

    # Exiting methods
    def exit(self, message=None):
        self._print_message(message, _sys.stderr)

    def error(self, message):
        args = {'prog': self.prog, 'message': message}
        self.exit('%(prog)s: error: %(message)s\n' % args)


# Benchmark driver (appended by benchmarks/corpus/build_argparse_case.py)
argument_parser = ArgumentParser('deploy push')
argument_parser.add_argument('--target', choices=['staging', 'prod'])
argument_parser.parse_known_args(['build-4711', '--target', 'qa'])
