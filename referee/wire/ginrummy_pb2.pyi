# mypy: ignore-errors
# Generated from proto/ginrummy/v1/ginrummy.proto by scripts/gen_proto. DO NOT EDIT!
from google.protobuf.internal import containers as _containers
from google.protobuf.internal import enum_type_wrapper as _enum_type_wrapper
from google.protobuf import descriptor as _descriptor
from google.protobuf import message as _message
from collections.abc import Iterable as _Iterable, Mapping as _Mapping
from typing import ClassVar as _ClassVar, Optional as _Optional, Union as _Union

DESCRIPTOR: _descriptor.FileDescriptor

class Phase(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    PHASE_UNSPECIFIED: _ClassVar[Phase]
    PHASE_CHOOSE_DEALER: _ClassVar[Phase]
    PHASE_UPCARD_OFFER: _ClassVar[Phase]
    PHASE_DRAW: _ClassVar[Phase]
    PHASE_DISCARD: _ClassVar[Phase]
    PHASE_WALL: _ClassVar[Phase]
    PHASE_DEFENDER: _ClassVar[Phase]
    PHASE_HAND_OVER: _ClassVar[Phase]
    PHASE_MATCH_OVER: _ClassVar[Phase]

class KnockKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    KNOCK_KIND_UNSPECIFIED: _ClassVar[KnockKind]
    KNOCK_KIND_KNOCK: _ClassVar[KnockKind]
    KNOCK_KIND_GIN: _ClassVar[KnockKind]
    KNOCK_KIND_BIG_GIN: _ClassVar[KnockKind]

class HandOutcome(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    HAND_OUTCOME_UNSPECIFIED: _ClassVar[HandOutcome]
    HAND_OUTCOME_KNOCK: _ClassVar[HandOutcome]
    HAND_OUTCOME_GIN: _ClassVar[HandOutcome]
    HAND_OUTCOME_BIG_GIN: _ClassVar[HandOutcome]
    HAND_OUTCOME_UNDERCUT: _ClassVar[HandOutcome]
    HAND_OUTCOME_DEAD: _ClassVar[HandOutcome]
    HAND_OUTCOME_PUSH: _ClassVar[HandOutcome]

class DeadReason(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    DEAD_REASON_UNSPECIFIED: _ClassVar[DeadReason]
    DEAD_REASON_STOCK_EXHAUSTED: _ClassVar[DeadReason]
    DEAD_REASON_MOVE_CAP: _ClassVar[DeadReason]
    DEAD_REASON_WALL_PASS: _ClassVar[DeadReason]
    DEAD_REASON_REPEATED_MOVE: _ClassVar[DeadReason]
    DEAD_REASON_DECLARED_DEAD: _ClassVar[DeadReason]
    DEAD_REASON_DISCARD_DRAW_CAP: _ClassVar[DeadReason]

class Termination(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    TERMINATION_UNSPECIFIED: _ClassVar[Termination]
    TERMINATION_TARGET_REACHED: _ClassVar[Termination]
    TERMINATION_SINGLE_HAND: _ClassVar[Termination]
    TERMINATION_FORFEIT: _ClassVar[Termination]
    TERMINATION_HOLLYWOOD: _ClassVar[Termination]

class FaultKind(int, metaclass=_enum_type_wrapper.EnumTypeWrapper):
    __slots__ = ()
    FAULT_KIND_UNSPECIFIED: _ClassVar[FaultKind]
    FAULT_KIND_ILLEGAL_ACTION: _ClassVar[FaultKind]
    FAULT_KIND_MALFORMED_ACTION: _ClassVar[FaultKind]
    FAULT_KIND_OUT_OF_TURN: _ClassVar[FaultKind]
    FAULT_KIND_DEADLINE_MISSED: _ClassVar[FaultKind]
    FAULT_KIND_TIME_BANK_EXHAUSTED: _ClassVar[FaultKind]
    FAULT_KIND_PROTOCOL_ERROR: _ClassVar[FaultKind]
    FAULT_KIND_DISCONNECTED: _ClassVar[FaultKind]
PHASE_UNSPECIFIED: Phase
PHASE_CHOOSE_DEALER: Phase
PHASE_UPCARD_OFFER: Phase
PHASE_DRAW: Phase
PHASE_DISCARD: Phase
PHASE_WALL: Phase
PHASE_DEFENDER: Phase
PHASE_HAND_OVER: Phase
PHASE_MATCH_OVER: Phase
KNOCK_KIND_UNSPECIFIED: KnockKind
KNOCK_KIND_KNOCK: KnockKind
KNOCK_KIND_GIN: KnockKind
KNOCK_KIND_BIG_GIN: KnockKind
HAND_OUTCOME_UNSPECIFIED: HandOutcome
HAND_OUTCOME_KNOCK: HandOutcome
HAND_OUTCOME_GIN: HandOutcome
HAND_OUTCOME_BIG_GIN: HandOutcome
HAND_OUTCOME_UNDERCUT: HandOutcome
HAND_OUTCOME_DEAD: HandOutcome
HAND_OUTCOME_PUSH: HandOutcome
DEAD_REASON_UNSPECIFIED: DeadReason
DEAD_REASON_STOCK_EXHAUSTED: DeadReason
DEAD_REASON_MOVE_CAP: DeadReason
DEAD_REASON_WALL_PASS: DeadReason
DEAD_REASON_REPEATED_MOVE: DeadReason
DEAD_REASON_DECLARED_DEAD: DeadReason
DEAD_REASON_DISCARD_DRAW_CAP: DeadReason
TERMINATION_UNSPECIFIED: Termination
TERMINATION_TARGET_REACHED: Termination
TERMINATION_SINGLE_HAND: Termination
TERMINATION_FORFEIT: Termination
TERMINATION_HOLLYWOOD: Termination
FAULT_KIND_UNSPECIFIED: FaultKind
FAULT_KIND_ILLEGAL_ACTION: FaultKind
FAULT_KIND_MALFORMED_ACTION: FaultKind
FAULT_KIND_OUT_OF_TURN: FaultKind
FAULT_KIND_DEADLINE_MISSED: FaultKind
FAULT_KIND_TIME_BANK_EXHAUSTED: FaultKind
FAULT_KIND_PROTOCOL_ERROR: FaultKind
FAULT_KIND_DISCONNECTED: FaultKind

class BotMessage(_message.Message):
    __slots__ = ("hello", "action_reply")
    HELLO_FIELD_NUMBER: _ClassVar[int]
    ACTION_REPLY_FIELD_NUMBER: _ClassVar[int]
    hello: Hello
    action_reply: ActionReply
    def __init__(self, hello: _Optional[_Union[Hello, _Mapping]] = ..., action_reply: _Optional[_Union[ActionReply, _Mapping]] = ...) -> None: ...

class RefereeMessage(_message.Message):
    __slots__ = ("welcome", "match_start", "hand_start", "decision_request", "event", "hand_end", "match_end", "fault")
    WELCOME_FIELD_NUMBER: _ClassVar[int]
    MATCH_START_FIELD_NUMBER: _ClassVar[int]
    HAND_START_FIELD_NUMBER: _ClassVar[int]
    DECISION_REQUEST_FIELD_NUMBER: _ClassVar[int]
    EVENT_FIELD_NUMBER: _ClassVar[int]
    HAND_END_FIELD_NUMBER: _ClassVar[int]
    MATCH_END_FIELD_NUMBER: _ClassVar[int]
    FAULT_FIELD_NUMBER: _ClassVar[int]
    welcome: Welcome
    match_start: MatchStart
    hand_start: HandStart
    decision_request: DecisionRequest
    event: GameEvent
    hand_end: HandEnd
    match_end: MatchEnd
    fault: Fault
    def __init__(self, welcome: _Optional[_Union[Welcome, _Mapping]] = ..., match_start: _Optional[_Union[MatchStart, _Mapping]] = ..., hand_start: _Optional[_Union[HandStart, _Mapping]] = ..., decision_request: _Optional[_Union[DecisionRequest, _Mapping]] = ..., event: _Optional[_Union[GameEvent, _Mapping]] = ..., hand_end: _Optional[_Union[HandEnd, _Mapping]] = ..., match_end: _Optional[_Union[MatchEnd, _Mapping]] = ..., fault: _Optional[_Union[Fault, _Mapping]] = ...) -> None: ...

class Hello(_message.Message):
    __slots__ = ("token", "bot_name", "bot_version", "protocol_version", "concurrent_matches")
    TOKEN_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    BOT_VERSION_FIELD_NUMBER: _ClassVar[int]
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    CONCURRENT_MATCHES_FIELD_NUMBER: _ClassVar[int]
    token: str
    bot_name: str
    bot_version: str
    protocol_version: int
    concurrent_matches: int
    def __init__(self, token: _Optional[str] = ..., bot_name: _Optional[str] = ..., bot_version: _Optional[str] = ..., protocol_version: _Optional[int] = ..., concurrent_matches: _Optional[int] = ...) -> None: ...

class Welcome(_message.Message):
    __slots__ = ("protocol_version", "referee_version", "bot_name")
    PROTOCOL_VERSION_FIELD_NUMBER: _ClassVar[int]
    REFEREE_VERSION_FIELD_NUMBER: _ClassVar[int]
    BOT_NAME_FIELD_NUMBER: _ClassVar[int]
    protocol_version: int
    referee_version: str
    bot_name: str
    def __init__(self, protocol_version: _Optional[int] = ..., referee_version: _Optional[str] = ..., bot_name: _Optional[str] = ...) -> None: ...

class MatchStart(_message.Message):
    __slots__ = ("match_id", "match_number", "series_length", "seat", "rules", "time_control", "opponent_name", "opponent_version", "deal_commitment", "players", "player_names", "team", "partner")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    MATCH_NUMBER_FIELD_NUMBER: _ClassVar[int]
    SERIES_LENGTH_FIELD_NUMBER: _ClassVar[int]
    SEAT_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    TIME_CONTROL_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_NAME_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_VERSION_FIELD_NUMBER: _ClassVar[int]
    DEAL_COMMITMENT_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    PLAYER_NAMES_FIELD_NUMBER: _ClassVar[int]
    TEAM_FIELD_NUMBER: _ClassVar[int]
    PARTNER_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    match_number: int
    series_length: int
    seat: int
    rules: Rules
    time_control: TimeControl
    opponent_name: str
    opponent_version: str
    deal_commitment: bytes
    players: int
    player_names: _containers.RepeatedScalarFieldContainer[str]
    team: int
    partner: int
    def __init__(self, match_id: _Optional[str] = ..., match_number: _Optional[int] = ..., series_length: _Optional[int] = ..., seat: _Optional[int] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ..., time_control: _Optional[_Union[TimeControl, _Mapping]] = ..., opponent_name: _Optional[str] = ..., opponent_version: _Optional[str] = ..., deal_commitment: _Optional[bytes] = ..., players: _Optional[int] = ..., player_names: _Optional[_Iterable[str]] = ..., team: _Optional[int] = ..., partner: _Optional[int] = ...) -> None: ...

class Rules(_message.Message):
    __slots__ = ("profile", "params")
    class ParamsEntry(_message.Message):
        __slots__ = ("key", "value")
        KEY_FIELD_NUMBER: _ClassVar[int]
        VALUE_FIELD_NUMBER: _ClassVar[int]
        key: str
        value: str
        def __init__(self, key: _Optional[str] = ..., value: _Optional[str] = ...) -> None: ...
    PROFILE_FIELD_NUMBER: _ClassVar[int]
    PARAMS_FIELD_NUMBER: _ClassVar[int]
    profile: str
    params: _containers.ScalarMap[str, str]
    def __init__(self, profile: _Optional[str] = ..., params: _Optional[_Mapping[str, str]] = ...) -> None: ...

class TimeControl(_message.Message):
    __slots__ = ("move_time_ms", "bank_ms")
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    move_time_ms: int
    bank_ms: int
    def __init__(self, move_time_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ...) -> None: ...

class HandStart(_message.Message):
    __slots__ = ("hand_number", "dealer", "hand", "upcard", "knock_limit", "knock_limit_from_upcard", "stock_size", "hand_seat", "hand_players", "sitting_out", "table")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    UPCARD_FIELD_NUMBER: _ClassVar[int]
    KNOCK_LIMIT_FIELD_NUMBER: _ClassVar[int]
    KNOCK_LIMIT_FROM_UPCARD_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    HAND_SEAT_FIELD_NUMBER: _ClassVar[int]
    HAND_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SITTING_OUT_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    dealer: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    upcard: str
    knock_limit: int
    knock_limit_from_upcard: bool
    stock_size: int
    hand_seat: int
    hand_players: _containers.RepeatedScalarFieldContainer[int]
    sitting_out: int
    table: int
    def __init__(self, hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., upcard: _Optional[str] = ..., knock_limit: _Optional[int] = ..., knock_limit_from_upcard: _Optional[bool] = ..., stock_size: _Optional[int] = ..., hand_seat: _Optional[int] = ..., hand_players: _Optional[_Iterable[int]] = ..., sitting_out: _Optional[int] = ..., table: _Optional[int] = ...) -> None: ...

class HandEnd(_message.Message):
    __slots__ = ("result", "scores", "player_scores", "team_scores", "round")
    RESULT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SCORES_FIELD_NUMBER: _ClassVar[int]
    TEAM_SCORES_FIELD_NUMBER: _ClassVar[int]
    ROUND_FIELD_NUMBER: _ClassVar[int]
    result: HandResult
    scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    player_scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    team_scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    round: RoundResult
    def __init__(self, result: _Optional[_Union[HandResult, _Mapping]] = ..., scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., player_scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., team_scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., round: _Optional[_Union[RoundResult, _Mapping]] = ...) -> None: ...

class MatchEnd(_message.Message):
    __slots__ = ("match_id", "result", "deal_seed", "deal_salt")
    MATCH_ID_FIELD_NUMBER: _ClassVar[int]
    RESULT_FIELD_NUMBER: _ClassVar[int]
    DEAL_SEED_FIELD_NUMBER: _ClassVar[int]
    DEAL_SALT_FIELD_NUMBER: _ClassVar[int]
    match_id: str
    result: MatchResult
    deal_seed: int
    deal_salt: bytes
    def __init__(self, match_id: _Optional[str] = ..., result: _Optional[_Union[MatchResult, _Mapping]] = ..., deal_seed: _Optional[int] = ..., deal_salt: _Optional[bytes] = ...) -> None: ...

class DecisionRequest(_message.Message):
    __slots__ = ("request_id", "observation", "legal_actions", "time_left_ms", "move_time_ms", "bank_ms", "new_events")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    OBSERVATION_FIELD_NUMBER: _ClassVar[int]
    LEGAL_ACTIONS_FIELD_NUMBER: _ClassVar[int]
    TIME_LEFT_MS_FIELD_NUMBER: _ClassVar[int]
    MOVE_TIME_MS_FIELD_NUMBER: _ClassVar[int]
    BANK_MS_FIELD_NUMBER: _ClassVar[int]
    NEW_EVENTS_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    observation: Observation
    legal_actions: _containers.RepeatedCompositeFieldContainer[Action]
    time_left_ms: int
    move_time_ms: int
    bank_ms: int
    new_events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    def __init__(self, request_id: _Optional[int] = ..., observation: _Optional[_Union[Observation, _Mapping]] = ..., legal_actions: _Optional[_Iterable[_Union[Action, _Mapping]]] = ..., time_left_ms: _Optional[int] = ..., move_time_ms: _Optional[int] = ..., bank_ms: _Optional[int] = ..., new_events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ...) -> None: ...

class ActionReply(_message.Message):
    __slots__ = ("request_id", "action")
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    ACTION_FIELD_NUMBER: _ClassVar[int]
    request_id: int
    action: Action
    def __init__(self, request_id: _Optional[int] = ..., action: _Optional[_Union[Action, _Mapping]] = ...) -> None: ...

class Observation(_message.Message):
    __slots__ = ("seat", "phase", "to_act", "hand", "discard_pile", "stock_size", "knock_limit", "knock_limit_from_upcard", "upcard", "opponent_known_cards", "taken_card", "barred_card", "must_knock", "scores", "dealer", "hand_number", "events", "rules", "last_hand_result", "player", "players", "hand_players", "sitting_out", "table", "player_scores", "team_scores")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    PHASE_FIELD_NUMBER: _ClassVar[int]
    TO_ACT_FIELD_NUMBER: _ClassVar[int]
    HAND_FIELD_NUMBER: _ClassVar[int]
    DISCARD_PILE_FIELD_NUMBER: _ClassVar[int]
    STOCK_SIZE_FIELD_NUMBER: _ClassVar[int]
    KNOCK_LIMIT_FIELD_NUMBER: _ClassVar[int]
    KNOCK_LIMIT_FROM_UPCARD_FIELD_NUMBER: _ClassVar[int]
    UPCARD_FIELD_NUMBER: _ClassVar[int]
    OPPONENT_KNOWN_CARDS_FIELD_NUMBER: _ClassVar[int]
    TAKEN_CARD_FIELD_NUMBER: _ClassVar[int]
    BARRED_CARD_FIELD_NUMBER: _ClassVar[int]
    MUST_KNOCK_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    EVENTS_FIELD_NUMBER: _ClassVar[int]
    RULES_FIELD_NUMBER: _ClassVar[int]
    LAST_HAND_RESULT_FIELD_NUMBER: _ClassVar[int]
    PLAYER_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    HAND_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    SITTING_OUT_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    PLAYER_SCORES_FIELD_NUMBER: _ClassVar[int]
    TEAM_SCORES_FIELD_NUMBER: _ClassVar[int]
    seat: int
    phase: Phase
    to_act: int
    hand: _containers.RepeatedScalarFieldContainer[str]
    discard_pile: _containers.RepeatedScalarFieldContainer[str]
    stock_size: int
    knock_limit: int
    knock_limit_from_upcard: bool
    upcard: str
    opponent_known_cards: _containers.RepeatedScalarFieldContainer[str]
    taken_card: str
    barred_card: str
    must_knock: bool
    scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    dealer: int
    hand_number: int
    events: _containers.RepeatedCompositeFieldContainer[GameEvent]
    rules: Rules
    last_hand_result: HandResult
    player: int
    players: int
    hand_players: _containers.RepeatedScalarFieldContainer[int]
    sitting_out: int
    table: int
    player_scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    team_scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    def __init__(self, seat: _Optional[int] = ..., phase: _Optional[_Union[Phase, str]] = ..., to_act: _Optional[int] = ..., hand: _Optional[_Iterable[str]] = ..., discard_pile: _Optional[_Iterable[str]] = ..., stock_size: _Optional[int] = ..., knock_limit: _Optional[int] = ..., knock_limit_from_upcard: _Optional[bool] = ..., upcard: _Optional[str] = ..., opponent_known_cards: _Optional[_Iterable[str]] = ..., taken_card: _Optional[str] = ..., barred_card: _Optional[str] = ..., must_knock: _Optional[bool] = ..., scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., dealer: _Optional[int] = ..., hand_number: _Optional[int] = ..., events: _Optional[_Iterable[_Union[GameEvent, _Mapping]]] = ..., rules: _Optional[_Union[Rules, _Mapping]] = ..., last_hand_result: _Optional[_Union[HandResult, _Mapping]] = ..., player: _Optional[int] = ..., players: _Optional[int] = ..., hand_players: _Optional[_Iterable[int]] = ..., sitting_out: _Optional[int] = ..., table: _Optional[int] = ..., player_scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., team_scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ...) -> None: ...

class SeatScore(_message.Message):
    __slots__ = ("points", "hands_won", "extra_boxes")
    POINTS_FIELD_NUMBER: _ClassVar[int]
    HANDS_WON_FIELD_NUMBER: _ClassVar[int]
    EXTRA_BOXES_FIELD_NUMBER: _ClassVar[int]
    points: int
    hands_won: int
    extra_boxes: int
    def __init__(self, points: _Optional[int] = ..., hands_won: _Optional[int] = ..., extra_boxes: _Optional[int] = ...) -> None: ...

class Action(_message.Message):
    __slots__ = ("draw_stock", "draw_discard", "pass_offer", "declare_dead", "discard", "knock", "big_gin", "defender_play", "choose_deal")
    DRAW_STOCK_FIELD_NUMBER: _ClassVar[int]
    DRAW_DISCARD_FIELD_NUMBER: _ClassVar[int]
    PASS_OFFER_FIELD_NUMBER: _ClassVar[int]
    DECLARE_DEAD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    KNOCK_FIELD_NUMBER: _ClassVar[int]
    BIG_GIN_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_PLAY_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_DEAL_FIELD_NUMBER: _ClassVar[int]
    draw_stock: DrawStock
    draw_discard: DrawDiscard
    pass_offer: Pass
    declare_dead: DeclareDead
    discard: Discard
    knock: Knock
    big_gin: BigGin
    defender_play: DefenderPlay
    choose_deal: ChooseDeal
    def __init__(self, draw_stock: _Optional[_Union[DrawStock, _Mapping]] = ..., draw_discard: _Optional[_Union[DrawDiscard, _Mapping]] = ..., pass_offer: _Optional[_Union[Pass, _Mapping]] = ..., declare_dead: _Optional[_Union[DeclareDead, _Mapping]] = ..., discard: _Optional[_Union[Discard, _Mapping]] = ..., knock: _Optional[_Union[Knock, _Mapping]] = ..., big_gin: _Optional[_Union[BigGin, _Mapping]] = ..., defender_play: _Optional[_Union[DefenderPlay, _Mapping]] = ..., choose_deal: _Optional[_Union[ChooseDeal, _Mapping]] = ...) -> None: ...

class DrawStock(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DrawDiscard(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Pass(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DeclareDead(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class Discard(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class Knock(_message.Message):
    __slots__ = ("discard", "arrangement")
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    ARRANGEMENT_FIELD_NUMBER: _ClassVar[int]
    discard: str
    arrangement: Arrangement
    def __init__(self, discard: _Optional[str] = ..., arrangement: _Optional[_Union[Arrangement, _Mapping]] = ...) -> None: ...

class BigGin(_message.Message):
    __slots__ = ("arrangement",)
    ARRANGEMENT_FIELD_NUMBER: _ClassVar[int]
    arrangement: Arrangement
    def __init__(self, arrangement: _Optional[_Union[Arrangement, _Mapping]] = ...) -> None: ...

class DefenderPlay(_message.Message):
    __slots__ = ("melds", "layoffs")
    MELDS_FIELD_NUMBER: _ClassVar[int]
    LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    layoffs: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., layoffs: _Optional[_Iterable[str]] = ...) -> None: ...

class ChooseDeal(_message.Message):
    __slots__ = ("deal",)
    DEAL_FIELD_NUMBER: _ClassVar[int]
    deal: bool
    def __init__(self, deal: _Optional[bool] = ...) -> None: ...

class Meld(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class Arrangement(_message.Message):
    __slots__ = ("melds", "deadwood")
    MELDS_FIELD_NUMBER: _ClassVar[int]
    DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    melds: _containers.RepeatedCompositeFieldContainer[Meld]
    deadwood: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., deadwood: _Optional[_Iterable[str]] = ...) -> None: ...

class GameEvent(_message.Message):
    __slots__ = ("seat", "take_upcard", "pass_offer", "draw_stock", "draw_discard", "discard", "knock", "declare_dead", "showdown", "choose_deal")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    TAKE_UPCARD_FIELD_NUMBER: _ClassVar[int]
    PASS_OFFER_FIELD_NUMBER: _ClassVar[int]
    DRAW_STOCK_FIELD_NUMBER: _ClassVar[int]
    DRAW_DISCARD_FIELD_NUMBER: _ClassVar[int]
    DISCARD_FIELD_NUMBER: _ClassVar[int]
    KNOCK_FIELD_NUMBER: _ClassVar[int]
    DECLARE_DEAD_FIELD_NUMBER: _ClassVar[int]
    SHOWDOWN_FIELD_NUMBER: _ClassVar[int]
    CHOOSE_DEAL_FIELD_NUMBER: _ClassVar[int]
    seat: int
    take_upcard: TakeUpcardEvent
    pass_offer: PassEvent
    draw_stock: DrawStockEvent
    draw_discard: DrawDiscardEvent
    discard: DiscardEvent
    knock: KnockEvent
    declare_dead: DeclareDeadEvent
    showdown: Showdown
    choose_deal: ChooseDealEvent
    def __init__(self, seat: _Optional[int] = ..., take_upcard: _Optional[_Union[TakeUpcardEvent, _Mapping]] = ..., pass_offer: _Optional[_Union[PassEvent, _Mapping]] = ..., draw_stock: _Optional[_Union[DrawStockEvent, _Mapping]] = ..., draw_discard: _Optional[_Union[DrawDiscardEvent, _Mapping]] = ..., discard: _Optional[_Union[DiscardEvent, _Mapping]] = ..., knock: _Optional[_Union[KnockEvent, _Mapping]] = ..., declare_dead: _Optional[_Union[DeclareDeadEvent, _Mapping]] = ..., showdown: _Optional[_Union[Showdown, _Mapping]] = ..., choose_deal: _Optional[_Union[ChooseDealEvent, _Mapping]] = ...) -> None: ...

class TakeUpcardEvent(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class PassEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class DrawStockEvent(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class DrawDiscardEvent(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class DiscardEvent(_message.Message):
    __slots__ = ("card",)
    CARD_FIELD_NUMBER: _ClassVar[int]
    card: str
    def __init__(self, card: _Optional[str] = ...) -> None: ...

class KnockEvent(_message.Message):
    __slots__ = ("kind", "arrangement")
    KIND_FIELD_NUMBER: _ClassVar[int]
    ARRANGEMENT_FIELD_NUMBER: _ClassVar[int]
    kind: KnockKind
    arrangement: Arrangement
    def __init__(self, kind: _Optional[_Union[KnockKind, str]] = ..., arrangement: _Optional[_Union[Arrangement, _Mapping]] = ...) -> None: ...

class DeclareDeadEvent(_message.Message):
    __slots__ = ()
    def __init__(self) -> None: ...

class ChooseDealEvent(_message.Message):
    __slots__ = ("deal",)
    DEAL_FIELD_NUMBER: _ClassVar[int]
    deal: bool
    def __init__(self, deal: _Optional[bool] = ...) -> None: ...

class Layoff(_message.Message):
    __slots__ = ("card", "meld_index")
    CARD_FIELD_NUMBER: _ClassVar[int]
    MELD_INDEX_FIELD_NUMBER: _ClassVar[int]
    card: str
    meld_index: int
    def __init__(self, card: _Optional[str] = ..., meld_index: _Optional[int] = ...) -> None: ...

class Showdown(_message.Message):
    __slots__ = ("knocker", "kind", "knock_discard", "knocker_arrangement", "knocker_deadwood", "defender_melds", "layoffs", "defender_deadwood_cards", "defender_deadwood")
    KNOCKER_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    KNOCK_DISCARD_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_ARRANGEMENT_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_MELDS_FIELD_NUMBER: _ClassVar[int]
    LAYOFFS_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_DEADWOOD_CARDS_FIELD_NUMBER: _ClassVar[int]
    DEFENDER_DEADWOOD_FIELD_NUMBER: _ClassVar[int]
    knocker: int
    kind: KnockKind
    knock_discard: str
    knocker_arrangement: Arrangement
    knocker_deadwood: int
    defender_melds: _containers.RepeatedCompositeFieldContainer[Meld]
    layoffs: _containers.RepeatedCompositeFieldContainer[Layoff]
    defender_deadwood_cards: _containers.RepeatedScalarFieldContainer[str]
    defender_deadwood: int
    def __init__(self, knocker: _Optional[int] = ..., kind: _Optional[_Union[KnockKind, str]] = ..., knock_discard: _Optional[str] = ..., knocker_arrangement: _Optional[_Union[Arrangement, _Mapping]] = ..., knocker_deadwood: _Optional[int] = ..., defender_melds: _Optional[_Iterable[_Union[Meld, _Mapping]]] = ..., layoffs: _Optional[_Iterable[_Union[Layoff, _Mapping]]] = ..., defender_deadwood_cards: _Optional[_Iterable[str]] = ..., defender_deadwood: _Optional[int] = ...) -> None: ...

class HandResult(_message.Message):
    __slots__ = ("hand_number", "dealer", "outcome", "winner", "points", "knocker", "doubled", "extra_boxes", "dead_reason", "showdown", "payoffs", "final_hands", "hand_players", "table")
    HAND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    DEALER_FIELD_NUMBER: _ClassVar[int]
    OUTCOME_FIELD_NUMBER: _ClassVar[int]
    WINNER_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    KNOCKER_FIELD_NUMBER: _ClassVar[int]
    DOUBLED_FIELD_NUMBER: _ClassVar[int]
    EXTRA_BOXES_FIELD_NUMBER: _ClassVar[int]
    DEAD_REASON_FIELD_NUMBER: _ClassVar[int]
    SHOWDOWN_FIELD_NUMBER: _ClassVar[int]
    PAYOFFS_FIELD_NUMBER: _ClassVar[int]
    FINAL_HANDS_FIELD_NUMBER: _ClassVar[int]
    HAND_PLAYERS_FIELD_NUMBER: _ClassVar[int]
    TABLE_FIELD_NUMBER: _ClassVar[int]
    hand_number: int
    dealer: int
    outcome: HandOutcome
    winner: int
    points: int
    knocker: int
    doubled: bool
    extra_boxes: int
    dead_reason: DeadReason
    showdown: Showdown
    payoffs: _containers.RepeatedScalarFieldContainer[float]
    final_hands: _containers.RepeatedCompositeFieldContainer[SeatCards]
    hand_players: _containers.RepeatedScalarFieldContainer[int]
    table: int
    def __init__(self, hand_number: _Optional[int] = ..., dealer: _Optional[int] = ..., outcome: _Optional[_Union[HandOutcome, str]] = ..., winner: _Optional[int] = ..., points: _Optional[int] = ..., knocker: _Optional[int] = ..., doubled: _Optional[bool] = ..., extra_boxes: _Optional[int] = ..., dead_reason: _Optional[_Union[DeadReason, str]] = ..., showdown: _Optional[_Union[Showdown, _Mapping]] = ..., payoffs: _Optional[_Iterable[float]] = ..., final_hands: _Optional[_Iterable[_Union[SeatCards, _Mapping]]] = ..., hand_players: _Optional[_Iterable[int]] = ..., table: _Optional[int] = ...) -> None: ...

class RoundResult(_message.Message):
    __slots__ = ("round_number", "tables", "team_hand_points", "winning_team", "points")
    ROUND_NUMBER_FIELD_NUMBER: _ClassVar[int]
    TABLES_FIELD_NUMBER: _ClassVar[int]
    TEAM_HAND_POINTS_FIELD_NUMBER: _ClassVar[int]
    WINNING_TEAM_FIELD_NUMBER: _ClassVar[int]
    POINTS_FIELD_NUMBER: _ClassVar[int]
    round_number: int
    tables: _containers.RepeatedCompositeFieldContainer[HandResult]
    team_hand_points: _containers.RepeatedScalarFieldContainer[int]
    winning_team: int
    points: int
    def __init__(self, round_number: _Optional[int] = ..., tables: _Optional[_Iterable[_Union[HandResult, _Mapping]]] = ..., team_hand_points: _Optional[_Iterable[int]] = ..., winning_team: _Optional[int] = ..., points: _Optional[int] = ...) -> None: ...

class SeatCards(_message.Message):
    __slots__ = ("cards",)
    CARDS_FIELD_NUMBER: _ClassVar[int]
    cards: _containers.RepeatedScalarFieldContainer[str]
    def __init__(self, cards: _Optional[_Iterable[str]] = ...) -> None: ...

class MatchResult(_message.Message):
    __slots__ = ("winner", "final_scores", "margin", "termination", "forfeit", "scores", "hands_played", "games", "players", "winning_team", "placings")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    FINAL_SCORES_FIELD_NUMBER: _ClassVar[int]
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    TERMINATION_FIELD_NUMBER: _ClassVar[int]
    FORFEIT_FIELD_NUMBER: _ClassVar[int]
    SCORES_FIELD_NUMBER: _ClassVar[int]
    HANDS_PLAYED_FIELD_NUMBER: _ClassVar[int]
    GAMES_FIELD_NUMBER: _ClassVar[int]
    PLAYERS_FIELD_NUMBER: _ClassVar[int]
    WINNING_TEAM_FIELD_NUMBER: _ClassVar[int]
    PLACINGS_FIELD_NUMBER: _ClassVar[int]
    winner: int
    final_scores: _containers.RepeatedScalarFieldContainer[int]
    margin: int
    termination: Termination
    forfeit: Forfeit
    scores: _containers.RepeatedCompositeFieldContainer[SeatScore]
    hands_played: int
    games: _containers.RepeatedCompositeFieldContainer[GameScore]
    players: int
    winning_team: int
    placings: _containers.RepeatedScalarFieldContainer[int]
    def __init__(self, winner: _Optional[int] = ..., final_scores: _Optional[_Iterable[int]] = ..., margin: _Optional[int] = ..., termination: _Optional[_Union[Termination, str]] = ..., forfeit: _Optional[_Union[Forfeit, _Mapping]] = ..., scores: _Optional[_Iterable[_Union[SeatScore, _Mapping]]] = ..., hands_played: _Optional[int] = ..., games: _Optional[_Iterable[_Union[GameScore, _Mapping]]] = ..., players: _Optional[int] = ..., winning_team: _Optional[int] = ..., placings: _Optional[_Iterable[int]] = ...) -> None: ...

class GameScore(_message.Message):
    __slots__ = ("winner", "hand_points", "hands_won", "extra_boxes", "final_scores", "shutout", "margin")
    WINNER_FIELD_NUMBER: _ClassVar[int]
    HAND_POINTS_FIELD_NUMBER: _ClassVar[int]
    HANDS_WON_FIELD_NUMBER: _ClassVar[int]
    EXTRA_BOXES_FIELD_NUMBER: _ClassVar[int]
    FINAL_SCORES_FIELD_NUMBER: _ClassVar[int]
    SHUTOUT_FIELD_NUMBER: _ClassVar[int]
    MARGIN_FIELD_NUMBER: _ClassVar[int]
    winner: int
    hand_points: _containers.RepeatedScalarFieldContainer[int]
    hands_won: _containers.RepeatedScalarFieldContainer[int]
    extra_boxes: _containers.RepeatedScalarFieldContainer[int]
    final_scores: _containers.RepeatedScalarFieldContainer[int]
    shutout: bool
    margin: int
    def __init__(self, winner: _Optional[int] = ..., hand_points: _Optional[_Iterable[int]] = ..., hands_won: _Optional[_Iterable[int]] = ..., extra_boxes: _Optional[_Iterable[int]] = ..., final_scores: _Optional[_Iterable[int]] = ..., shutout: _Optional[bool] = ..., margin: _Optional[int] = ...) -> None: ...

class Forfeit(_message.Message):
    __slots__ = ("seat", "kind", "rule", "reason", "both_seats")
    SEAT_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    RULE_FIELD_NUMBER: _ClassVar[int]
    REASON_FIELD_NUMBER: _ClassVar[int]
    BOTH_SEATS_FIELD_NUMBER: _ClassVar[int]
    seat: int
    kind: FaultKind
    rule: str
    reason: str
    both_seats: bool
    def __init__(self, seat: _Optional[int] = ..., kind: _Optional[_Union[FaultKind, str]] = ..., rule: _Optional[str] = ..., reason: _Optional[str] = ..., both_seats: _Optional[bool] = ...) -> None: ...

class Fault(_message.Message):
    __slots__ = ("rule", "message", "kind", "request_id", "retry")
    RULE_FIELD_NUMBER: _ClassVar[int]
    MESSAGE_FIELD_NUMBER: _ClassVar[int]
    KIND_FIELD_NUMBER: _ClassVar[int]
    REQUEST_ID_FIELD_NUMBER: _ClassVar[int]
    RETRY_FIELD_NUMBER: _ClassVar[int]
    rule: str
    message: str
    kind: FaultKind
    request_id: int
    retry: bool
    def __init__(self, rule: _Optional[str] = ..., message: _Optional[str] = ..., kind: _Optional[_Union[FaultKind, str]] = ..., request_id: _Optional[int] = ..., retry: _Optional[bool] = ...) -> None: ...
