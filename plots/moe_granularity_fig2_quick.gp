# Granularity paper Fig. 2: normalized test MSE of trained students vs teacher granularity.
# Left: the heat map of the paper (rows: teacher, columns: student; number = mean over seeds).
# Right: the same numbers against student_k / teacher_k, one line per teacher, +- standard error.
# Usage: gnuplot -e "csv='results/moe_granularity_fig2_quick.csv'; png='results/moe_granularity_fig2_quick.png'" plots/moe_granularity_fig2_quick.gp
# Columns are selected by name (the CSV header), so a reordered CSV still plots right.
if (!exists("csv")) csv = 'results/moe_granularity_fig2_quick.csv'
if (!exists("png")) png = 'results/moe_granularity_fig2_quick.png'

set encoding utf8
svg = png[1:strlen(png) - 4] . ".svg"
trials_text = system(sprintf("sed -n 's/^# trials: //p' '%s' | head -1", csv))
col_values(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} {print $k}' | sort -n | uniq | tr '\\n' ' '", csv, name))
first_value(name) = system(sprintf("grep -v '^#' '%s' | awk -F, 'NR == 1 {for (i = 1; i <= NF; i++) if ($i == \"%s\") k = i; next} {print $k; exit}'", csv, name))
teachers = col_values("teacher_k")
students = col_values("student_k")
dval = first_value("d")
samples = first_value("samples")
tn = first_value("teacher_w") * first_value("teacher_k")
# Heat-map cells sit at the rank of their value among the distinct values (1, 2, 3, ...), so any grid
# (2, 3, 6 as well as powers of two) gets equal, non-overlapping squares.
rank_in(v, list, i) = i > words(list) ? NaN : (abs(word(list, i) + 0 - v) < 1e-9 ? i : rank_in(v, list, i + 1))
srank(v) = rank_in(v, students, 1)
trank(v) = rank_in(v, teachers, 1)
do for [out in "png svg"] {
if (out eq "png") {
  if (strstrt(GPVAL_TERMINALS, "pngcairo") > 0) {
    set terminal pngcairo size 1400,600 enhanced font ",11"
  } else {
    set terminal png size 1400,600
  }
  set output png
} else {
  set terminal svg size 1400,600 enhanced font ",11" dynamic
  set output svg
}
set datafile separator comma
set datafile columnheaders
set multiplot layout 1, 2 title sprintf("Trained students vs random teachers (d = %s, teacher kw = %d, %s samples per run); %s", dval, tn, samples, trials_text)
# Heat map: one square per (student, teacher) pair, labelled with the granularities.
set xlabel "student granularity k' (m' = 2k')"
set ylabel "teacher granularity k (m = 2k)"
set xtics ()
set ytics ()
do for [i = 1:words(students)] { set xtics add (word(students, i) i) }
do for [i = 1:words(teachers)] { set ytics add (word(teachers, i) i) }
set xrange [0.5 : words(students) + 0.5]
set yrange [0.5 : words(teachers) + 0.5]
set cbrange [0:0.3]
set palette defined (0 "#f7fbff", 0.1 "#9ecae1", 0.2 "#3182bd", 0.3 "#08306b")
set cblabel "normalized test MSE"
set title "normalized test MSE (mean over seeds)"
plot csv using (srank(column("student_k"))):(trank(column("teacher_k"))):(0.5):(0.5):(column("nmse_mean")) with boxxyerror fs solid 1.0 lc palette notitle, \
     csv using (srank(column("student_k"))):(trank(column("teacher_k"))):(sprintf("%.3f", column("nmse_mean"))) with labels font ",12" tc rgb "#d62728" notitle
unset xtics
unset ytics
set xtics
set ytics
unset cbrange
unset colorbox
set title "separation: error stays up while k' < k"
set xlabel "k' / k (student / teacher granularity)"
set ylabel "normalized test MSE"
set logscale x 2
set xrange [*:*]
set yrange [-0.02:*]
set grid
set key top right box opaque
plot for [i = 1:words(teachers)] csv using (column("teacher_k") == word(teachers, i) + 0 ? column("granularity_ratio") : 1/0):"nmse_mean":"nmse_std_error" \
       with yerrorlines pt 7 lw 2 title sprintf("teacher %de%da", 2 * word(teachers, i), word(teachers, i) + 0)
unset logscale x
unset multiplot
unset yrange
unset xrange
}
