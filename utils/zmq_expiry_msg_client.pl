#!/usr/bin/perl
# zmq_expiry_msg_client.pl: a consumer of the server's 0MQ expiry push,
# written with ZMQ::FFI (Debian: libzmq-ffi-perl). It connects a PULL socket
# to each endpoint given and prints every message as one line, exactly as
# utils/zmq_expiry_msg_client (the C consumer) does; the protocol and the line
# format are described in EXPIRY_0MQ.md:
#
#   db=0 type=string key="k" value="v"
#   db=0 type=hash key="h" fields=2 "f1"="v1" "f2"="v2"
#   db=0 type=list key="l" elements=2 "a" "b"
#   db=0 type=set key="s" members=2 "a" "b"
#   db=0 type=zset key="z" members=2 "a"="1" "b"="2.5"
#
# Strings are quoted; '\' and '"' are escaped, \n \r \t too, and any other
# byte outside printable ASCII is written as \xHH, so binary data stays on one
# line. Messages that break the protocol are reported on stderr.
#
# With --ack it speaks the acknowledged protocol of `zmq-expiry-ack yes`, as
# the C consumer does: a DEALER socket, READY <window> to each endpoint, a
# fourth frame with the message's sequence number, ACK <seq> once the lines
# are written; a message whose sequence number was printed already is
# acknowledged, not printed again.
#
# Usage: zmq_expiry_msg_client.pl [-n COUNT] [--ack [-w WINDOW]] ENDPOINT...
#   -n COUNT   exit after COUNT messages printed (default: run until killed)
#   --ack      acknowledged delivery (the server has zmq-expiry-ack yes)
#   -w WINDOW  with --ack: unacknowledged messages the server may send
#              ahead, 1..1000000 (default 1000)
use strict;
use warnings;
use Getopt::Long qw(:config no_ignore_case);
use POSIX qw(EAGAIN EINTR);
use ZMQ::FFI;
use ZMQ::FFI::Constants qw(ZMQ_PULL ZMQ_DEALER ZMQ_RCVTIMEO);

my ($limit, $ack, $window) = (-1, 0, 1000);
GetOptions('n=i' => \$limit, 'ack' => \$ack, 'w=i' => \$window)
    && @ARGV && $window >= 1 && $window <= 1000000
    or die "Usage: $0 [-n COUNT] [--ack [-w WINDOW]] ENDPOINT...\n"
         . "Prints each 0MQ expiry message of the server, one line per message.\n"
         . "--ack: acknowledged delivery (zmq-expiry-ack yes); -w: its window, 1..1000000 (default 1000).\n";

my @type_names = qw(string hash list set zset);

# Byte string -> quoted, escaped text (same rules as the C consumer).
sub quoted {
    my ($s) = @_;
    $s =~ s/([\\"])/\\$1/g;
    $s =~ s/\n/\\n/g;
    $s =~ s/\r/\\r/g;
    $s =~ s/\t/\\t/g;
    $s =~ s/([^\x20-\x7e])/sprintf("\\x%02x", ord($1))/ge;
    return "\"$s\"";
}

# Reads a native-order uint32 at $$pos of $buf; dies if the frame is short.
sub read_u32 {
    my ($buf, $pos) = @_;
    die "bad value frame\n" if length($buf) - $$pos < 4;
    my $v = unpack('L', substr($buf, $$pos, 4));
    $$pos += 4;
    return $v;
}

# Reads a length-prefixed string.
sub read_string {
    my ($buf, $pos) = @_;
    my $len = read_u32($buf, $pos);
    die "bad value frame\n" if length($buf) - $$pos < $len;
    my $s = substr($buf, $$pos, $len);
    $$pos += $len;
    return $s;
}

# Decodes one message (its frames) into a line; dies with the reason if malformed.
sub format_message {
    my @frames = @_;
    die "expected 3 frames\n" unless @frames == 3;
    die "header frame is not 4 bytes\n" unless length($frames[0]) == 4;
    my ($db, $type) = unpack('S S', $frames[0]);
    my $kpos = 0;
    my $key = eval { read_string($frames[1], \$kpos) };
    die "bad key frame\n" if !defined $key || $kpos != length($frames[1]);
    my $name = $type < @type_names ? $type_names[$type] : "unknown($type)";
    my $line = "db=$db type=$name key=" . quoted($key);

    my ($val, $pos) = ($frames[2], 0);
    if ($type == 0) {
        $line .= ' value=' . quoted(read_string($val, \$pos));
    } elsif ($type == 1 || $type == 4) {
        my $count = read_u32($val, \$pos);
        die "bad value frame\n" if $count % 2;
        $line .= sprintf(' %s=%d', $type == 1 ? 'fields' : 'members', $count / 2);
        for (my $i = 0; $i < $count; $i += 2) {
            my $f = read_string($val, \$pos);
            my $v = read_string($val, \$pos);
            $line .= ' ' . quoted($f) . '=' . quoted($v);
        }
    } elsif ($type == 2 || $type == 3) {
        my $count = read_u32($val, \$pos);
        $line .= sprintf(' %s=%d', $type == 2 ? 'elements' : 'members', $count);
        $line .= ' ' . quoted(read_string($val, \$pos)) for 1 .. $count;
    } else {
        # A type this client does not know: its size only.
        $line .= ' bytes=' . length($val);
        $pos = length($val);
    }
    die "bad value frame\n" if $pos != length($val);
    return $line;
}

# The sequence numbers printed last, so that a re-sent message is not
# printed twice: the newest 2^20 (1048576, more than the largest window; a
# re-send is of a message still unacknowledged, so within the window), the
# oldest forgotten first. The C consumer keeps the same bound.
my $SEEN_MAX = 1 << 20;
my (%seen, @seen_order);
my ($unacked, $last_seq) = (0, 0);    # handled since the last ACK, and the last of them

sub remember {
    my ($seq) = @_;
    delete $seen{shift @seen_order} if @seen_order == $SEEN_MAX;
    push @seen_order, $seq;
    $seen{$seq} = 1;
}

sub malformed {
    my ($err) = @_;
    chomp $err;
    print STDERR "malformed message ($err)\n";
    return 0;
}

# Handles one message (its frames): prints its line, skips a re-sent one or
# reports it malformed. Returns 1 when a line was printed.
sub handle_message {
    my @frames = @_;
    my $seq;
    if ($ack) {
        return malformed('expected 4 frames') unless @frames == 4;
        my $seqframe = pop @frames;
        return malformed('sequence frame is not 8 bytes') unless length($seqframe) == 8;
        $seq = unpack('Q', $seqframe);
        if ($seen{$seq}) {    # acknowledged so that the server drops it
            ($unacked, $last_seq) = ($unacked + 1, $seq);
            return 0;
        }
    }
    my $line = eval { format_message(@frames) };
    return malformed($@) unless defined $line;
    print "$line\n";
    if ($ack) {
        remember($seq);
        ($unacked, $last_seq) = ($unacked + 1, $seq);
    }
    return 1;
}

$| = 1;    # every line is written at once, so what is printed may be acknowledged
my $ctx = ZMQ::FFI->new();
my $sock = $ctx->socket($ack ? ZMQ_DEALER : ZMQ_PULL);
$sock->connect($_) for @ARGV;

# A DEALER deals what it sends round-robin over its connections, so one copy
# per endpoint reaches each endpoint once.
sub send_each {
    my ($text) = @_;
    $sock->send($text) for @ARGV;
}

sub ack_handled {
    send_each("ACK $last_seq") if $unacked;
    $unacked = 0;
}

if ($ack) {
    # An idle wait ends each second to say READY again: a server that
    # restarted (0MQ reconnects by itself) learns the window that way.
    $sock->set(ZMQ_RCVTIMEO, 'int', 1000);
    $sock->die_on_error(0);
    send_each("READY $window");
}

for (my $n = 0; $limit < 0 || $n < $limit;) {
    my @frames = $sock->recv_multipart();
    if ($ack && $sock->has_error) {
        my $errno = $sock->last_errno;
        die "receive failed: " . $sock->last_strerror . "\n" unless $errno == EAGAIN || $errno == EINTR;
        send_each("READY $window") if $errno == EAGAIN;
        next;
    }
    # Without --ack every message counts, malformed ones too, as always.
    $n += handle_message(@frames) || !$ack;
    # Acknowledged in batches: once what is waiting has been handled.
    ack_handled() if $ack && !$sock->has_pollin;
}
if ($ack) {
    ack_handled();
    $sock->set_linger(2000);    # time for 0MQ to deliver the last ACK
    $sock->close();
}
